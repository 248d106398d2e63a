import type { ActionDescriptor } from '../descriptor.js';
import { PERSON_PATTERN } from '../ids.js';
import {
  OPERATOR_WRITES,
  type OperatorWriteAction,
  type WriteRouteName,
  writeRouteName,
} from '../operator-writes.js';
import { queuedTurnsSchema } from './turns.js';
import { serverParams } from './reads.js';

/**
 * The operator writes as rows of the operator API, one per catalog action
 * of catalog/operator-writes.ts (`writes.task.create`, ...): the body is
 * the action's own input, checked by the action's generated validator (the
 * one Exec uses); `as` in the query names the person the write is made for
 * (default: the profile's person, else `human:operator`). The answer is the action's output, through
 * the same handler and result gate as Exec, and, for a task, the turns the
 * write started (a person assigning an agent).
 */

const personQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { as: { type: 'string', pattern: PERSON_PATTERN } },
} as const;

/** The action's output with the turns the write started beside it. */
type WithTurns<S> = S extends {
  readonly properties: infer P;
  readonly required: infer R extends readonly string[];
}
  ? {
      readonly type: 'object';
      readonly additionalProperties: false;
      readonly required: R;
      readonly properties: P & { readonly turns: typeof queuedTurnsSchema };
    }
  : never;

/** The row of one write action: the action's schemas, typed from its descriptor. */
type WriteRoute<D extends ActionDescriptor> = D extends ActionDescriptor
  ? {
      readonly name: WriteRouteName<D>;
      readonly method: 'POST';
      readonly path: `/api/v1/servers/:serverId/writes/${D['domain']}/${D['action']}`;
      readonly summary: string;
      readonly permission: 'operator';
      readonly invalid: 'invalid_request';
      readonly decoder: string;
      readonly params: typeof serverParams;
      readonly query: typeof personQuery;
      readonly body: D['input'];
      readonly output: WithTurns<D['output']>;
    }
  : never;

export type OperatorWriteRoute = WriteRoute<OperatorWriteAction>;

/** The write actions, each once: `task update` serves `task update` and `task assign`. */
export const WRITE_ACTIONS: readonly OperatorWriteAction[] = [
  ...new Set(OPERATOR_WRITES.map((r) => r.descriptor)),
];

function writeRoute(d: OperatorWriteAction): OperatorWriteRoute {
  const out = d.output as { properties: Record<string, unknown> };
  return {
    name: writeRouteName(d),
    method: 'POST',
    path: `/api/v1/servers/:serverId/writes/${d.domain}/${d.action}`,
    summary: `Operator write, as a person: ${d.summary}`,
    permission: 'operator',
    invalid: 'invalid_request',
    decoder: `the ${d.domain} ${d.action} action's own input validator (dist/generated/validators/)`,
    params: serverParams,
    query: personQuery,
    body: d.input,
    output: {
      ...d.output,
      properties: {
        ...out.properties,
        turns: {
          ...queuedTurnsSchema,
          description:
            'The turns this write started: a person assigned the task to an agent of the profile.',
        },
      },
    },
  } as unknown as OperatorWriteRoute;
}

/** Every write row, in the order of the list. */
export const OPERATOR_WRITE_ROUTES: readonly OperatorWriteRoute[] = WRITE_ACTIONS.map(writeRoute);
