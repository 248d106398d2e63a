import type { Catalog } from './catalog.js';
import type { ActionDescriptor } from './descriptor.js';
import {
  commandSpec,
  type OperatorCommandRow,
  type OperatorCommandSpec,
} from './operator-commands.js';
import { approvalList } from './domains/approval.js';
import { projectGet, projectList } from './domains/project.js';
import { reviewList } from './domains/review.js';
import {
  scheduledMessageGet,
  scheduledMessageList,
  scheduledMessageRuns,
} from './domains/scheduled-message.js';
import { taskGet, taskList } from './domains/task.js';
import { turnGet, turnList } from './domains/turn.js';
import { workflowRun } from './domains/workflow.js';

/**
 * The catalog reads an operator may run without a runtime authorization
 * (`agentteam task list`, `approval list`, ...): what agents create, read
 * through the same handlers, validation, paging and result gate as Exec.
 * Only reads of data the team server holds; handlers that depend on a
 * runtime's binding (workspace, agent) are not here. This list is the one
 * source of the read commands (readCommandSpecs below) and of the operator
 * API's read rows (catalog/operator/reads.ts).
 */
type OperatorRead = OperatorCommandRow;

export const OPERATOR_READS = [
  { command: ['approval', 'list'], descriptor: approvalList },
  { command: ['task', 'list'], descriptor: taskList },
  { command: ['task', 'get'], descriptor: taskGet },
  { command: ['project', 'list'], descriptor: projectList },
  { command: ['project', 'get'], descriptor: projectGet },
  { command: ['review', 'list'], descriptor: reviewList },
  { command: ['turn', 'list'], descriptor: turnList },
  { command: ['turn', 'show'], descriptor: turnGet },
  { command: ['scheduled-message', 'list'], descriptor: scheduledMessageList },
  { command: ['scheduled-message', 'get'], descriptor: scheduledMessageGet },
  { command: ['scheduled-message', 'runs'], descriptor: scheduledMessageRuns },
  {
    command: ['workflow', 'run', 'list'],
    descriptor: workflowRun,
    op: 'list',
    fields: ['planId', 'status', 'limit', 'cursor'],
    summary: 'List workflow runs, newest first.',
  },
  {
    command: ['workflow', 'run', 'show'],
    descriptor: workflowRun,
    op: 'show',
    fields: ['id'],
    required: ['id'],
    summary: 'Show one workflow run with its steps.',
  },
] as const satisfies readonly OperatorRead[];

/** The catalog actions the operator reads run, each once (one action may serve several commands, one per op). */
export type OperatorReadAction = (typeof OPERATOR_READS)[number]['descriptor'];

/** The operator API row name of a read's action: `reads.<domain>.<action>`. */
export type ReadRouteName<D extends Pick<ActionDescriptor, 'domain' | 'action'>> = D extends unknown
  ? `reads.${D['domain']}.${D['action']}`
  : never;

export function readRouteName<const D extends Pick<ActionDescriptor, 'domain' | 'action'>>(
  d: D,
): ReadRouteName<D> {
  return `reads.${d.domain}.${d.action}` as ReadRouteName<D>;
}

/** The operator read for one call, or undefined: the action and op must be listed above. */
export function operatorReadOf(
  domain: string,
  action: string,
  input: unknown,
): OperatorRead | undefined {
  const op =
    input !== null && typeof input === 'object' ? (input as { op?: unknown }).op : undefined;
  return (OPERATOR_READS as readonly OperatorRead[]).find(
    (r) =>
      r.descriptor.domain === domain &&
      r.descriptor.action === action &&
      (r.op === undefined || r.op === op),
  );
}

const SELECTORS = new Set(['idempotencyKey', 'requestId', 'op']);

/** The command specs of every operator read, from the catalog's descriptors; throws if one does not fit. */
export function readCommandSpecs(
  catalog: Catalog,
  reads: readonly OperatorRead[] = OPERATOR_READS,
): OperatorCommandSpec[] {
  return reads.map((r) => commandSpec(catalog, r, 'read', SELECTORS));
}
