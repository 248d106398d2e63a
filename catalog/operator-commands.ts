import type { Catalog } from './catalog.js';
import { type ActionDescriptor, callRisk } from './descriptor.js';

/**
 * What the operator's read and write commands share: one row of a list
 * (catalog/operator-reads.ts, catalog/operator-writes.ts) names a catalog
 * action and the CLI words that run it, and the command's arguments and
 * options are derived here from the action's input schema, so a command
 * offers exactly the fields Exec takes, named and described as the catalog
 * names them.
 */
export interface OperatorCommandRow {
  /** The CLI words after `agentteam`. */
  readonly command: readonly string[];
  /** The catalog action it runs: its input is the request body, its output the answer. */
  readonly descriptor: ActionDescriptor;
  /** For workflow actions: the op, fixed by the command. */
  readonly op?: string;
  /**
   * Input fields the command offers, for commands that offer only some of
   * the action's fields (an op of a workflow action, `task assign`).
   * Without it: every input property but the selectors.
   */
  readonly fields?: readonly string[];
  /** With `fields`: those the command requires (positional arguments). */
  readonly required?: readonly string[];
  /** The command's own summary where the catalog's covers more (an op, a narrowed action). */
  readonly summary?: string;
}

/** One option or argument of an operator command, derived from the action's input schema. */
interface CommandField {
  readonly name: string;
  /** `--kebab-name`. */
  readonly flag: string;
  readonly type: 'string' | 'integer';
  readonly required: boolean;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  /** The field also takes null (clears it): the command offers `--no-<flag>`. */
  readonly nullable?: true;
}

/** What the CLI builds one command from (written to dist/generated/operator-commands.json by the build). */
export interface OperatorCommandSpec {
  readonly command: readonly string[];
  readonly domain: string;
  readonly action: string;
  /** The operator API row the command calls (`reads.<domain>.<action>` or `writes.<domain>.<action>`). */
  readonly route: string;
  /** A write: the command names the person it acts for (`--as human:<handle>`). */
  readonly write?: true;
  readonly op?: string;
  readonly summary: string;
  /** Required fields, in the order given: positional arguments. */
  readonly args: readonly CommandField[];
  readonly options: readonly CommandField[];
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A property's one non-null type, and whether it also admits null (`anyOf: [T, {type: null}]`). */
function scalarOf(p: Record<string, unknown>): { s: Record<string, unknown>; nullable: boolean } {
  if (Array.isArray(p.anyOf)) {
    const branches = p.anyOf as Record<string, unknown>[];
    const others = branches.filter((b) => b.type !== 'null');
    if (others.length === 1 && branches.length === 2) return { s: others[0]!, nullable: true };
  }
  return { s: p, nullable: false };
}

/**
 * The command spec of one row, or an error naming what does not fit: an
 * action the catalog does not hold, one of the wrong risk (a read row must
 * be a read, a write row a side effect), a field the action does not take or
 * whose type a command line cannot give.
 */
export function commandSpec(
  catalog: Catalog,
  r: OperatorCommandRow,
  kind: 'read' | 'write',
  /** Input properties no command offers by default. */
  skip: ReadonlySet<string>,
): OperatorCommandSpec {
  const { domain, action } = r.descriptor;
  const label = `operator ${kind} ${r.command.join(' ')}`;
  const entry = catalog.get(domain, action);
  if (entry?.descriptor !== r.descriptor)
    throw new Error(`${label}: no catalog action ${domain} ${action}`);
  const d = entry.descriptor;
  const risk = callRisk(d, r.op === undefined ? {} : { op: r.op });
  if (kind === 'read' && risk !== 'read')
    throw new Error(`${label}: ${domain} ${action} is not a read`);
  if (kind === 'write' && risk === 'read')
    throw new Error(`${label}: ${domain} ${action} is a read`);
  const schema = d.input as {
    properties?: Record<string, Record<string, unknown>>;
    required?: readonly string[];
  };
  const props = schema.properties ?? {};
  const names = r.fields ?? Object.keys(props).filter((n) => !skip.has(n));
  const required = new Set(r.fields ? (r.required ?? []) : (schema.required ?? []));
  const fields = names.map((name): CommandField => {
    const p = props[name];
    if (!p) throw new Error(`${label}: ${domain} ${action} has no input field ${name}`);
    const { s, nullable } = scalarOf(p);
    const type = s.type === 'integer' ? 'integer' : s.type === 'string' ? 'string' : null;
    if (!type) throw new Error(`${label}: field ${name} is neither a string nor an integer`);
    const described = typeof p.description === 'string' ? p.description : s.description;
    return {
      name,
      flag: `--${kebab(name)}`,
      type,
      required: required.has(name),
      description:
        typeof described === 'string'
          ? described
          : name === 'id'
            ? `${domain} id`
            : kind === 'write'
              ? `the ${kebab(name).replace(/-/g, ' ')}`
              : `only those with this ${kebab(name).replace(/-/g, ' ')}`,
      ...(Array.isArray(s.enum) ? { choices: s.enum as string[] } : {}),
      ...(typeof s.minimum === 'number' ? { minimum: s.minimum } : {}),
      ...(typeof s.maximum === 'number' ? { maximum: s.maximum } : {}),
      ...(nullable && !required.has(name) ? { nullable: true as const } : {}),
    };
  });
  return {
    command: r.command,
    domain,
    action,
    route: `${kind}s.${domain}.${action}`,
    ...(kind === 'write' ? { write: true as const } : {}),
    ...(r.op !== undefined ? { op: r.op } : {}),
    summary: r.summary ?? d.summary,
    args: fields.filter((f) => f.required),
    options: fields.filter((f) => !f.required),
  };
}
