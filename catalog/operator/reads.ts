import type { ActionDescriptor } from '../descriptor.js';
import { ENTITY_ID_PATTERN } from '../ids.js';
import {
  OPERATOR_READS,
  type OperatorReadAction,
  type ReadRouteName,
  readRouteName,
} from '../operator-reads.js';

/**
 * The operator reads as rows of the operator API, one per catalog action of
 * catalog/operator-reads.ts (`reads.task.list`, `reads.workflow.run`, ...):
 * the body is the action's own input, checked by the action's generated
 * validator (the one Exec uses), and the answer is the action's output,
 * through the same handler and result gate as Exec. The rows are derived
 * from the list, so a read added there is a row here with its real types.
 */

/** The path parameters of a row under `/servers/:serverId/` (the reads and the writes). */
export const serverParams = {
  type: 'object',
  additionalProperties: false,
  required: ['serverId'],
  properties: { serverId: { type: 'string', pattern: ENTITY_ID_PATTERN } },
} as const;

/** The row of one read action: the action's schemas, typed from its descriptor. */
type ReadRoute<D extends ActionDescriptor> = D extends ActionDescriptor
  ? {
      readonly name: ReadRouteName<D>;
      readonly method: 'POST';
      readonly path: `/api/v1/servers/:serverId/reads/${D['domain']}/${D['action']}`;
      readonly summary: string;
      readonly permission: 'operator';
      readonly invalid: 'invalid_request';
      readonly decoder: string;
      readonly params: typeof serverParams;
      readonly body: D['input'];
      readonly output: D['output'];
    }
  : never;

export type OperatorReadRoute = ReadRoute<OperatorReadAction>;

/** The read actions, each once: one action may serve several commands, one per op (workflow run list, show). */
export const READ_ACTIONS: readonly OperatorReadAction[] = [
  ...new Set(OPERATOR_READS.map((r) => r.descriptor)),
];

function readRoute(d: OperatorReadAction): OperatorReadRoute {
  const ops = OPERATOR_READS.filter((r) => r.descriptor === d).flatMap((r) =>
    'op' in r ? [r.op] : [],
  );
  return {
    name: readRouteName(d),
    method: 'POST',
    path: `/api/v1/servers/:serverId/reads/${d.domain}/${d.action}`,
    summary:
      ops.length > 0
        ? `Operator read: ${d.domain} ${d.action} with op ${ops.join(' or ')} (other ops are refused).`
        : `Operator read: ${d.summary}`,
    permission: 'operator',
    invalid: 'invalid_request',
    decoder: `the ${d.domain} ${d.action} action's own input validator (dist/generated/validators/)`,
    params: serverParams,
    body: d.input,
    output: d.output,
  } as OperatorReadRoute;
}

/** Every read row, in the order of the list. */
export const OPERATOR_READ_ROUTES: readonly OperatorReadRoute[] = READ_ACTIONS.map(readRoute);
