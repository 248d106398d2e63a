import { ENTITY_ID_PATTERN } from '../ids.js';
import { operatorRoute } from './route.js';

/**
 * The catalog reads a person may run (catalog/operator-reads.ts lists them:
 * `task list`, `approval list`, ...): the body is the action's own input,
 * checked by the action's generated validator, and the answer is the action's
 * output, through the same handler and result gate as Exec.
 */
export const operatorRead = operatorRoute({
  name: 'reads.run',
  method: 'POST',
  path: '/api/v1/servers/:serverId/reads/:domain/:action',
  summary: 'Runs one operator read (a catalog read action) on a server.',
  permission: 'operator',
  invalid: 'invalid_request',
  decoder: "the action's own input validator (dist/generated/validators/)",
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['serverId', 'domain', 'action'],
    properties: {
      serverId: { type: 'string', pattern: ENTITY_ID_PATTERN },
      domain: { type: 'string' },
      action: { type: 'string' },
    },
  },
  body: { type: 'object' },
  output: { type: 'object' },
});
