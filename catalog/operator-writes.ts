import type { Catalog } from './catalog.js';
import type { ActionDescriptor } from './descriptor.js';
import { projectCreate } from './domains/project.js';
import { taskCreate, taskUpdate } from './domains/task.js';
import {
  commandSpec,
  type OperatorCommandRow,
  type OperatorCommandSpec,
} from './operator-commands.js';

/**
 * The catalog writes a person may make from the CLI and the console
 * (`agentteam task create`, `task assign`, `project create`, ...): the
 * actions agents call through Exec, run by the same handlers after the same
 * validation, with the person (`human:<handle>`) as the caller the store
 * and the audit trail record. This list is the one source of the write
 * commands (writeCommandSpecs below) and of the operator API's write rows
 * (catalog/operator/writes.ts).
 */
export const OPERATOR_WRITES = [
  { command: ['task', 'create'], descriptor: taskCreate },
  { command: ['task', 'update'], descriptor: taskUpdate },
  {
    command: ['task', 'assign'],
    descriptor: taskUpdate,
    fields: ['id', 'assignee', 'expectedRevision', 'idempotencyKey'],
    required: ['id', 'assignee'],
    summary:
      "Assign a task (task update with only the assignee); an agent of the profile starts a turn on the task's thread.",
  },
  { command: ['project', 'create'], descriptor: projectCreate },
] as const satisfies readonly OperatorCommandRow[];

/** The catalog actions the operator writes run, each once. */
export type OperatorWriteAction = (typeof OPERATOR_WRITES)[number]['descriptor'];

/** The operator API row name of a write's action: `writes.<domain>.<action>`. */
export type WriteRouteName<D extends Pick<ActionDescriptor, 'domain' | 'action'>> =
  D extends unknown ? `writes.${D['domain']}.${D['action']}` : never;

export function writeRouteName<const D extends Pick<ActionDescriptor, 'domain' | 'action'>>(
  d: D,
): WriteRouteName<D> {
  return `writes.${d.domain}.${d.action}` as WriteRouteName<D>;
}

/** Offered by no write command: `requestId` is `idempotencyKey` under another name. */
const SELECTORS = new Set(['requestId']);

/** The command specs of every operator write, from the catalog's descriptors; throws if one does not fit. */
export function writeCommandSpecs(
  catalog: Catalog,
  writes: readonly OperatorCommandRow[] = OPERATOR_WRITES,
): OperatorCommandSpec[] {
  return writes.map((r) => commandSpec(catalog, r, 'write', SELECTORS));
}
