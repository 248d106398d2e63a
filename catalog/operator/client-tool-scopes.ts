import { operatorRoute } from './route.js';

/**
 * The operator's read of saved delegated scopes: each delegated session (a
 * child thread the daemon saw a runtime spawn) with the client tools its
 * scope names, by fingerprint, and whether each is still offered as saved.
 */

const scopedTool = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'fingerprint', 'current'],
  properties: {
    name: { type: 'string' },
    fingerprint: { type: 'string' },
    current: {
      type: 'boolean',
      description: 'Whether a tool of that name is offered now with this fingerprint (callable).',
    },
  },
} as const;

export const clientToolsScopes = operatorRoute({
  name: 'clientTools.scopes',
  method: 'GET',
  path: '/api/v1/client-tools/scopes',
  summary:
    'Saved delegated scopes: every delegated session, or the one named by session, with its scoped tools.',
  permission: 'operator',
  invalid: 'invalid_request',
  query: {
    type: 'object',
    additionalProperties: false,
    properties: { session: { type: 'string', minLength: 1, maxLength: 256 } },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['sessions'],
    properties: {
      sessions: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['agent', 'session', 'parent', 'task', 'kind', 'created_at', 'tools'],
          properties: {
            agent: { type: 'string' },
            session: { type: 'string' },
            parent: { type: 'string' },
            task: { type: 'string' },
            kind: { enum: ['scoped', 'inspection', 'legacy'] },
            created_at: { type: 'integer' },
            tools: { type: 'array', items: scopedTool },
          },
        },
      },
    },
  },
});
