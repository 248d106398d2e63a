import { CLIENT_TOOL_SUBSET, checkSchemaSubset } from './schema-subset.js';
import type { ToolAnnotations } from './mcp-tool-descriptor.js';

/**
 * The declaration file of a declared tool ($AGENTTEAM_HOME/tools/<file>.json):
 * its published JSON Schema (`agentteam tools --schema`) and the checker the
 * daemon and `agentteam tools check` share. Pure: no I/O. Problems carry a
 * JSON pointer into the file.
 */

const TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;
const DEFAULT_OUTPUT_BYTES = 16 * 1024;
const MIN_OUTPUT_BYTES = 1024;
const MAX_OUTPUT_BYTES = 1024 * 1024;
/** `{name}` inside an argv element; `{{` and `}}` stand for literal braces. */
export const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** The argument a resumed call carries: the person's answer to the tool's question. */
export const ANSWERED = 'answered';

const annotationsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 200 },
    readOnlyHint: { type: 'boolean' },
    destructiveHint: { type: 'boolean' },
    idempotentHint: { type: 'boolean' },
    openWorldHint: { type: 'boolean' },
  },
} as const;

export const DECLARATION_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://agentteam.local/schemas/tool-declaration.json',
  title: 'agentteam declared tool',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'transport'],
  properties: {
    $schema: { type: 'string' },
    name: {
      type: 'string',
      pattern: TOOL_NAME_PATTERN,
      description:
        'One name, one entry: it may not clash with a built-in, another declaration or a client tool.',
    },
    title: { type: 'string', maxLength: 200 },
    description: {
      type: 'string',
      minLength: 1,
      maxLength: 4000,
      description: 'What the model is told the tool does.',
    },
    needs: {
      type: 'object',
      description:
        'Input schema (the client-tool keyword subset, "type": "object" at the root). Required for command tools; builtin tools use the built-in\'s own.',
    },
    annotations: annotationsSchema,
    transport: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'argv'],
          properties: {
            type: { const: 'command' },
            argv: {
              type: 'array',
              minItems: 1,
              maxItems: 256,
              items: { type: 'string', maxLength: 4096 },
              description:
                'Program and arguments, never through a shell. {field} placeholders are filled from the call, each staying one element.',
            },
            cwd: {
              type: 'string',
              minLength: 1,
              description:
                "Working directory: absolute, or relative to the declaration file. Default: the runtime's workdir, else the tools directory.",
            },
            env: {
              type: 'array',
              maxItems: 64,
              items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
              description: 'Names of daemon environment variables passed on (PATH always is).',
            },
            timeoutMs: {
              type: 'integer',
              minimum: 100,
              maximum: MAX_TIMEOUT_MS,
              default: DEFAULT_TIMEOUT_MS,
            },
            exitCodes: {
              type: 'array',
              minItems: 1,
              maxItems: 32,
              items: { type: 'integer', minimum: 0, maximum: 255 },
              default: [0],
              description:
                'Exit statuses that mean success (e.g. [0, 1] for grep-like tools, where 1 is "no match").',
            },
            outputBytes: {
              type: 'integer',
              minimum: MIN_OUTPUT_BYTES,
              maximum: MAX_OUTPUT_BYTES,
              default: DEFAULT_OUTPUT_BYTES,
              description:
                'Limit of said in UTF-8 bytes; beyond it head and tail are kept and the whole is spilled.',
            },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'tool'],
          properties: {
            type: { const: 'builtin' },
            tool: {
              type: 'string',
              pattern: TOOL_NAME_PATTERN,
              description: "The daemon's own tool this entry reaches.",
            },
          },
        },
      ],
    },
  },
} as const;

export interface CommandTransport {
  readonly type: 'command';
  readonly argv: readonly string[];
  readonly cwd?: string;
  readonly env: readonly string[];
  readonly timeoutMs: number;
  readonly outputBytes: number;
  readonly exitCodes: readonly number[];
}

export interface BuiltinTransport {
  readonly type: 'builtin';
  readonly tool: string;
}

export interface Declaration {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly needs?: Readonly<Record<string, unknown>>;
  readonly annotations: ToolAnnotations;
  readonly transport: CommandTransport | BuiltinTransport;
}

interface DeclarationProblem {
  /** JSON pointer into the declaration file ('' is the whole document). */
  readonly pointer: string;
  readonly message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** `$.properties.a[0]` (the subset checker's paths) -> `/properties/a/0`. */
export function pointerOfPath(path: string): string {
  let out = '';
  const re = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.slice(1).matchAll(re))
    out += `/${esc(m[1] ?? m[2] ?? (JSON.parse(m[3]!) as string))}`;
  return out;
}

/** The placeholder names of one argv element. */
function placeholdersOf(element: string): string[] {
  return [...element.matchAll(PLACEHOLDER)].flatMap((m) => (m[1] ? [m[1]] : []));
}

/**
 * Checks a parsed declaration file. Unknown fields, wrong types, a `needs`
 * outside the subset, placeholders naming no input property: each is a
 * problem with its pointer; all are reported, not only the first.
 */
export function checkDeclaration(
  doc: unknown,
): { ok: true; decl: Declaration } | { ok: false; problems: DeclarationProblem[] } {
  const problems: DeclarationProblem[] = [];
  const bad = (pointer: string, message: string) => void problems.push({ pointer, message });
  if (!isObj(doc))
    return {
      ok: false,
      problems: [{ pointer: '', message: 'a declaration must be one JSON object' }],
    };
  const known = new Set(Object.keys(DECLARATION_SCHEMA.properties));
  for (const k of Object.keys(doc)) if (!known.has(k)) bad(`/${esc(k)}`, `unknown field "${k}"`);
  const str = (k: string, max: number, required: boolean) => {
    const v = doc[k];
    if (v === undefined) return required ? bad(`/${k}`, `"${k}" is required`) : undefined;
    if (typeof v !== 'string' || v.length === 0 || v.length > max)
      bad(`/${k}`, `"${k}" must be a non-empty string of at most ${max} characters`);
  };
  str('name', 64, true);
  if (typeof doc.name === 'string' && !new RegExp(TOOL_NAME_PATTERN).test(doc.name))
    bad('/name', `"name" must match ${TOOL_NAME_PATTERN}`);
  str('title', 200, false);
  str('description', 4000, true);
  const annotations: ToolAnnotations = {};
  if (doc.annotations !== undefined) {
    if (!isObj(doc.annotations)) bad('/annotations', '"annotations" must be an object');
    else {
      for (const [k, v] of Object.entries(doc.annotations)) {
        if (
          k === 'title'
            ? typeof v !== 'string'
            : !(k in annotationsSchema.properties) || typeof v !== 'boolean'
        ) {
          bad(
            `/annotations/${esc(k)}`,
            k in annotationsSchema.properties
              ? `annotation "${k}" has the wrong type`
              : `unknown annotation "${k}"`,
          );
        } else (annotations as Record<string, unknown>)[k] = v;
      }
    }
  }
  const t = doc.transport;
  let transport: CommandTransport | BuiltinTransport | undefined;
  if (t === undefined) bad('/transport', '"transport" is required');
  else if (!isObj(t)) bad('/transport', '"transport" must be an object');
  else if (t.type === 'command') transport = checkCommand(t, doc.needs, bad);
  else if (t.type === 'builtin') {
    for (const k of Object.keys(t))
      if (k !== 'type' && k !== 'tool')
        bad(`/transport/${esc(k)}`, `unknown field "${k}" in a builtin transport`);
    if (typeof t.tool !== 'string' || !new RegExp(TOOL_NAME_PATTERN).test(t.tool))
      bad('/transport/tool', '"tool" must name a built-in tool');
    if (doc.needs !== undefined)
      bad(
        '/needs',
        'a builtin tool takes the input schema of the built-in it reaches; leave "needs" out',
      );
    transport = { type: 'builtin', tool: String(t.tool) };
  } else bad('/transport/type', '"type" must be "command" or "builtin"');
  if (problems.length > 0 || !transport) return { ok: false, problems };
  const decl: Declaration = {
    name: doc.name as string,
    ...(typeof doc.title === 'string' ? { title: doc.title } : {}),
    description: doc.description as string,
    ...(isObj(doc.needs) ? { needs: doc.needs } : {}),
    annotations,
    transport,
  };
  return { ok: true, decl };
}

function checkCommand(
  t: Record<string, unknown>,
  needs: unknown,
  bad: (p: string, m: string) => void,
): CommandTransport | undefined {
  const allowed = ['type', 'argv', 'cwd', 'env', 'timeoutMs', 'outputBytes', 'exitCodes'];
  for (const k of Object.keys(t))
    if (!allowed.includes(k))
      bad(`/transport/${esc(k)}`, `unknown field "${k}" in a command transport`);
  let props = new Set<string>();
  if (needs === undefined)
    bad(
      '/needs',
      'a command tool needs "needs" (its input schema; {"type": "object", "properties": {}} for none)',
    );
  else {
    const problem = checkSchemaSubset(needs, CLIENT_TOOL_SUBSET, { requireObjectRoot: true });
    if (problem) bad(`/needs${pointerOfPath(problem.path)}`, problem.message);
    else
      props = new Set(Object.keys(((needs as { properties?: object }).properties ?? {}) as object));
  }
  props.add('answered');
  const argv = t.argv;
  if (!Array.isArray(argv) || argv.length === 0 || argv.length > 256)
    bad('/transport/argv', '"argv" must be an array of 1 to 256 strings');
  else {
    argv.forEach((a, i) => {
      if (typeof a !== 'string' || a.length > 4096) {
        bad(
          `/transport/argv/${i}`,
          'each argv element must be a string of at most 4096 characters',
        );
        return;
      }
      if (i === 0 && placeholdersOf(a).length > 0) {
        bad('/transport/argv/0', 'the program may not be a placeholder');
        return;
      }
      for (const p of placeholdersOf(a))
        if (!props.has(p))
          bad(`/transport/argv/${i}`, `placeholder {${p}} names no property of "needs"`);
    });
  }
  if (t.cwd !== undefined && (typeof t.cwd !== 'string' || t.cwd.length === 0))
    bad('/transport/cwd', '"cwd" must be a non-empty string');
  const env = t.env ?? [];
  if (!Array.isArray(env) || env.length > 64)
    bad('/transport/env', '"env" must be an array of at most 64 variable names');
  else
    env.forEach((e, i) => {
      if (typeof e !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(e))
        bad(`/transport/env/${i}`, 'must be an environment variable name');
    });
  const int = (k: string, min: number, max: number, dflt: number): number => {
    const v = t[k];
    if (v === undefined) return dflt;
    if (!Number.isInteger(v) || (v as number) < min || (v as number) > max)
      bad(`/transport/${k}`, `"${k}" must be an integer from ${min} to ${max}`);
    return v as number;
  };
  const timeoutMs = int('timeoutMs', 100, MAX_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  const outputBytes = int('outputBytes', MIN_OUTPUT_BYTES, MAX_OUTPUT_BYTES, DEFAULT_OUTPUT_BYTES);
  const exitCodes = t.exitCodes ?? [0];
  if (
    !Array.isArray(exitCodes) ||
    exitCodes.length === 0 ||
    exitCodes.length > 32 ||
    !exitCodes.every((c) => Number.isInteger(c) && c >= 0 && c <= 255)
  ) {
    bad('/transport/exitCodes', '"exitCodes" must be 1 to 32 integers from 0 to 255');
  }
  if (!Array.isArray(argv) || !Array.isArray(env) || !Array.isArray(exitCodes)) return undefined;
  return {
    type: 'command',
    argv: argv as string[],
    ...(typeof t.cwd === 'string' ? { cwd: t.cwd } : {}),
    env: env as string[],
    timeoutMs,
    outputBytes,
    exitCodes: exitCodes as number[],
  };
}

/** Line and column (1-based) of a character offset, for JSON syntax errors. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
