import type { Catalog } from './catalog.js';
import { type ActionDescriptor, callRisk } from './descriptor.js';
import { approvalList } from './domains/approval.js';
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
interface OperatorRead {
  /** The CLI words after `agentteam`. */
  readonly command: readonly string[];
  /** The catalog action it runs: its input is the request body, its output the answer. */
  readonly descriptor: ActionDescriptor;
  /** For workflow actions: the op, fixed by the command. */
  readonly op?: string;
  /**
   * Input fields the command offers, for actions whose fields depend on the
   * op (the catalog schema of a workflow action is the union of its ops).
   * Without it: every input property.
   */
  readonly fields?: readonly string[];
  /** With `fields`: those the op requires (the schema's `required` covers only `op`). */
  readonly required?: readonly string[];
  /** For workflow ops: the catalog summary covers every op, so the command has its own. */
  readonly summary?: string;
}

export const OPERATOR_READS = [
  { command: ['approval', 'list'], descriptor: approvalList },
  { command: ['task', 'list'], descriptor: taskList },
  { command: ['task', 'get'], descriptor: taskGet },
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

/** One option or argument of an operator read command, derived from the action's input schema. */
interface ReadField {
  readonly name: string;
  /** `--kebab-name`. */
  readonly flag: string;
  readonly type: 'string' | 'integer';
  readonly required: boolean;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
}

/** What the CLI builds one command from (written to dist/generated/operator-reads.json by the build). */
export interface ReadCommandSpec {
  readonly command: readonly string[];
  readonly domain: string;
  readonly action: string;
  /** The operator API row the command calls. */
  readonly route: ReadRouteName<OperatorReadAction>;
  readonly op?: string;
  readonly summary: string;
  /** Required fields, in schema order: positional arguments. */
  readonly args: readonly ReadField[];
  readonly options: readonly ReadField[];
}

const SELECTORS = new Set(['idempotencyKey', 'requestId', 'op']);

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The command specs of every operator read, from the catalog's descriptors; throws if one does not fit. */
export function readCommandSpecs(
  catalog: Catalog,
  reads: readonly OperatorRead[] = OPERATOR_READS,
): ReadCommandSpec[] {
  return reads.map((r) => {
    const { domain, action } = r.descriptor;
    const entry = catalog.get(domain, action);
    if (entry?.descriptor !== r.descriptor)
      throw new Error(
        `operator read ${r.command.join(' ')}: no catalog action ${domain} ${action}`,
      );
    const d = entry.descriptor;
    if (callRisk(d, r.op === undefined ? {} : { op: r.op }) !== 'read') {
      throw new Error(`operator read ${r.command.join(' ')}: ${domain} ${action} is not a read`);
    }
    const schema = d.input as {
      properties?: Record<string, Record<string, unknown>>;
      required?: readonly string[];
    };
    const props = schema.properties ?? {};
    const names = r.fields ?? Object.keys(props).filter((n) => !SELECTORS.has(n));
    const required = new Set(r.fields ? (r.required ?? []) : (schema.required ?? []));
    const fields = names.map((name): ReadField => {
      const p = props[name];
      if (!p)
        throw new Error(
          `operator read ${r.command.join(' ')}: ${domain} ${action} has no input field ${name}`,
        );
      const type = p.type === 'integer' ? 'integer' : p.type === 'string' ? 'string' : null;
      if (!type)
        throw new Error(
          `operator read ${r.command.join(' ')}: field ${name} is neither a string nor an integer`,
        );
      return {
        name,
        flag: `--${kebab(name)}`,
        type,
        required: required.has(name),
        description:
          typeof p.description === 'string'
            ? p.description
            : name === 'id'
              ? `${domain} id`
              : `only those with this ${kebab(name).replace(/-/g, ' ')}`,
        ...(Array.isArray(p.enum) ? { choices: p.enum as string[] } : {}),
        ...(typeof p.minimum === 'number' ? { minimum: p.minimum } : {}),
        ...(typeof p.maximum === 'number' ? { maximum: p.maximum } : {}),
      };
    });
    const summary = r.summary ?? d.summary;
    return {
      command: r.command,
      domain,
      action,
      route: readRouteName(r.descriptor) as ReadRouteName<OperatorReadAction>,
      ...(r.op !== undefined ? { op: r.op } : {}),
      summary,
      args: fields.filter((f) => f.required),
      options: fields.filter((f) => !f.required),
    };
  });
}
