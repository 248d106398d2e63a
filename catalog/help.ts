import type { Risk, SchemaObject } from './descriptor.js';
import type { Catalog } from './catalog.js';

/**
 * The schema-free projection of the catalog that help text is rendered from.
 * The build writes it as a small module so `agentteam exec ... --help` never
 * loads the schemas; runtime drivers render their prompt summary from the same
 * projection, so help and prompt cannot drift apart.
 */
export interface FieldHelp {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
}

/** One op of an action with ops: the fields it takes besides `op`, read from its input rule. */
export interface OpHelp {
  readonly op: string;
  readonly risk: Risk;
  /** `id`, `status?` (optional), `planId? | triggerId?` are listed as the rule states them. */
  readonly fields: readonly string[];
  /** `exactly one of planId, triggerId`, `at least one of name, description, steps`. */
  readonly note?: string;
}

export interface ActionHelp {
  readonly action: string;
  readonly summary: string;
  readonly help: string;
  readonly example: unknown;
  readonly risk: Risk;
  readonly fields: readonly FieldHelp[];
  /** True when the input schema accepts `{}`, so the JSON argument may be omitted. */
  readonly acceptsEmpty: boolean;
  /** For an action that multiplexes on `op`: each op's fields, from its input rule. */
  readonly ops?: readonly OpHelp[];
}

export interface DomainHelp {
  readonly domain: string;
  readonly line: string;
  readonly actions: readonly ActionHelp[];
}

export interface HelpIndex {
  readonly domains: readonly DomainHelp[];
}

/** The common task lifecycle and `review add`: shown inline so they need no second help call. */
export const INLINE_EXAMPLES: readonly string[] = [
  'task/create',
  'task/list',
  'task/update',
  'review/add',
];

export const EXIT_STATUS_LINE =
  'Exit status: 0 ok, 1 error envelope from the daemon, 2 usage or invalid input, 3 no daemon or no credentials.';

export function helpIndexOf(catalog: Catalog): HelpIndex {
  return {
    domains: Object.entries(catalog.domains).map(([domain, line]) => ({
      domain,
      line,
      actions: catalog.actionsOf(domain).map(({ descriptor: d }) => {
        const input = d.input as SchemaObject;
        const required = (input.required ?? []) as readonly string[];
        const props = (input.properties ?? {}) as Record<string, SchemaObject>;
        return {
          action: d.action,
          summary: d.summary,
          help: d.help,
          example: d.example,
          risk: d.risk,
          fields: Object.entries(props).map(([name, s]) => ({
            name,
            type: typeSummary(s),
            required: required.includes(name),
          })),
          acceptsEmpty: required.length === 0,
          ...(d.opRisk ? { ops: opsHelp(input, d.opRisk) } : {}),
        };
      }),
    })),
  };
}

const SELECTOR_FIELDS = new Set(['op', 'idempotencyKey', 'requestId']);

/** Each op's fields, read from the `if {op} then {...}` rules of the input's `allOf` (catalog/workflow-ops.ts). */
function opsHelp(input: SchemaObject, opRisk: Readonly<Record<string, Risk>>): OpHelp[] {
  return ((input.allOf ?? []) as SchemaObject[]).flatMap((rule) => {
    const op = (rule.if as { properties?: { op?: { const?: unknown } } } | undefined)?.properties
      ?.op?.const;
    const then = rule.then as SchemaObject | undefined;
    if (typeof op !== 'string' || !then) return [];
    const required = (then.required ?? []) as readonly string[];
    const alternatives = (key: 'oneOf' | 'anyOf') =>
      ((then[key] ?? []) as SchemaObject[]).flatMap((a) => (a.required ?? []) as string[]);
    const one = alternatives('oneOf');
    const any = alternatives('anyOf');
    const note =
      one.length > 0
        ? `exactly one of ${one.join(', ')}`
        : any.length > 0
          ? `at least one of ${any.join(', ')}`
          : undefined;
    return [
      {
        op,
        risk: opRisk[op] ?? 'side_effect',
        fields: Object.keys((then.properties ?? {}) as SchemaObject)
          .filter((f) => !SELECTOR_FIELDS.has(f))
          .map((f) => (required.includes(f) ? f : `${f}?`)),
        ...(note ? { note } : {}),
      },
    ];
  });
}

/** A short human reading of a property schema: `string`, `todo|done`, `integer 1..100`, `string|null`. */
export function typeSummary(s: SchemaObject): string {
  if (Array.isArray(s.enum))
    return s.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('|');
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.anyOf)) return (s.anyOf as SchemaObject[]).map(typeSummary).join('|');
  if (Array.isArray(s.type)) return s.type.join('|');
  if (s.type === 'array') return `${s.items ? typeSummary(s.items as SchemaObject) : 'any'}[]`;
  if (s.type === 'integer' && typeof s.minimum === 'number' && typeof s.maximum === 'number') {
    return `integer ${s.minimum}..${s.maximum}`;
  }
  return typeof s.type === 'string' ? s.type : 'any';
}

/** Wraps a JSON text in single quotes for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function exampleLine(domain: string, a: ActionHelp): string {
  return `agentteam exec ${domain} ${a.action} ${shellQuote(JSON.stringify(a.example))}`;
}

function findAction(
  index: HelpIndex,
  key: string,
): { domain: string; action: ActionHelp } | undefined {
  const [domain, action] = key.split('/');
  const d = index.domains.find((x) => x.domain === domain);
  const a = d?.actions.find((x) => x.action === action);
  return d && a ? { domain: d.domain, action: a } : undefined;
}

/** Greedy word wrap for help paragraphs. */
export function wrap(text: string, width = 78): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function columns(rows: readonly (readonly [string, string])[], indent = '  '): string[] {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`.trimEnd());
}

/**
 * The mixed index: one line per domain, pointers to domain and action help,
 * and the inline examples. It is both `agentteam exec --help` and the Exec
 * part of a runtime's prompt.
 */
export function renderExecIndex(index: HelpIndex): string {
  const lines = [
    'Usage: agentteam exec <domain> <action> [JSON | -]',
    '',
    'Calls an agentteam action through the local daemon. Pass the input as one JSON',
    'value, inline or as - to read it from stdin; the JSON envelope is printed on stdout.',
    '',
    'Domains:',
    ...columns(
      index.domains.map((d) => [
        d.domain,
        `${d.line} (${d.actions.map((a) => a.action).join(', ')})`,
      ]),
    ),
    '',
    'Common calls:',
  ];
  for (const key of INLINE_EXAMPLES) {
    const found = findAction(index, key);
    if (found) lines.push(`  ${exampleLine(found.domain, found.action)}`);
  }
  lines.push(
    '',
    'More help:',
    '  agentteam exec <domain> --help             actions of a domain',
    '  agentteam exec <domain> <action> --help    usage, fields and an example',
    '  agentteam exec <domain> <action> --input-schema | --output-schema',
    '  agentteam exec --error-schema              the error envelope',
    '',
    EXIT_STATUS_LINE,
  );
  return `${lines.join('\n')}\n`;
}

export function renderDomainHelp(d: DomainHelp): string {
  const lines = [
    `Usage: agentteam exec ${d.domain} <action> [JSON | -]`,
    '',
    d.line,
    '',
    'Actions:',
    ...columns(
      d.actions.map((a) => [
        a.action,
        a.risk === 'side_effect' ? `${a.summary} (changes data)` : a.summary,
      ]),
    ),
    '',
    `Run \`agentteam exec ${d.domain} <action> --help\` for usage and an example.`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The ops section of an action's help: which fields each op takes. */
function opLines(ops: readonly OpHelp[]): string[] {
  const rows = ops.map((o): [string, string] => {
    const fields = o.fields.length > 0 ? o.fields.join(', ') : '(no other field)';
    const note = o.note ? `; ${o.note}` : '';
    return [o.op, `${fields}${note}${o.risk === 'side_effect' ? ' (changes data)' : ''}`];
  });
  return [
    'Ops (the fields each takes besides op; ? optional; an op that changes data',
    'also takes idempotencyKey or requestId; any other field is refused):',
    ...columns(rows),
    '',
  ];
}

export function renderActionHelp(domain: string, a: ActionHelp): string {
  const usage = a.acceptsEmpty ? '[JSON | -]' : '<JSON | ->';
  const fields = a.fields.map((f): [string, string] => [
    f.name,
    f.required ? `${f.type} (required)` : f.type,
  ]);
  const lines = [
    `Usage: agentteam exec ${domain} ${a.action} ${usage}`,
    '',
    a.summary,
    '',
    ...wrap(a.help),
    '',
    'Input fields:',
    ...(fields.length > 0 ? columns(fields) : ['  (none)']),
    '',
    ...(a.ops ? opLines(a.ops) : []),
    'Example:',
    `  ${exampleLine(domain, a)}`,
    '',
    `Schemas: agentteam exec ${domain} ${a.action} --input-schema | --output-schema`,
  ];
  return `${lines.join('\n')}\n`;
}
