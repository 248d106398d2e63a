import { limitsOf } from './client-tool-limits.js';
import { STDIO_TOOL_SUBSET, checkSchemaSubset, formatSubsetProblem } from './schema-subset.js';

/**
 * Client tools registered over stdio (`agentteam serve --stdio`): the limits
 * table, the descriptor rules and the effective descriptor. Pure, shared by
 * the CLI child (which validates the whole registry before any effect) and
 * the daemon (which checks again before it accepts a registration).
 */

const L = limitsOf('stdio');

/**
 * The stdio relay's limits table under the key names its contract gives
 * them, as the child announces it in `initialize`: the stdio edge of the
 * one table (client-tool-limits.ts).
 */
export const STDIO_LIMITS = {
  tools: L.toolsPerRegistration,
  name_bytes: L.nameBytes,
  description_bytes: L.descriptionBytes,
  registry_bytes: L.registryBytes,
  schema_bytes: L.schemaBytes,
  schema_depth: L.schemaDepth,
  arguments_bytes: L.argumentsBytes,
  result_bytes: L.resultBytes,
  pending_calls: L.pendingCalls,
  default_timeout_ms: L.defaultTimeoutMs,
  min_timeout_ms: L.minTimeoutMs,
  max_timeout_ms: L.maxTimeoutMs,
} as const;

/** Base protocol bounds of the stdio transport. */
export const STDIO_WIRE = {
  /** Input frame, the LF excluded. */
  inputFrameBytes: 65_536,
  /** Output frame, the LF included. */
  outputFrameBytes: 65_536,
  jsonDepth: 32,
  /** Request ids a child accepts in its lifetime. */
  lifetimeRequestIds: 4096,
  /** required_capabilities entries, and with client.tools requested. */
  requiredCapabilities: 16,
  requiredCapabilitiesWithClientTools: 18,
} as const;

export const CLIENT_TOOLS_CAPABILITY = 'client.tools';
/** Every capability `serve --stdio` provides: lending tools, and asking agents to work (sessions and turns). */
export const STDIO_CAPABILITIES = [
  CLIENT_TOOLS_CAPABILITY,
  'session.create',
  'turn.start',
] as const;
const STDIO_NAME_RE = /^client__[A-Za-z0-9_]{1,56}$/;

/** A descriptor as registered, with its timeout made explicit (what fingerprints and registry_bytes measure). */
export type StdioToolDescriptor = {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
  readonly timeout_ms: number;
};

const DESCRIPTOR_KEYS = ['name', 'description', 'input_schema', 'timeout_ms'];
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
// C0 controls other than tab and LF, DEL and C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Deepest container nesting (root container = 1). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let d = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) d = Math.max(d, depthOf(x));
  return d + 1;
}

/**
 * Validates the whole `client_tools` array. Returns the effective
 * descriptors in registration order, or the first problem as one line naming
 * its place (`client_tools[1].input_schema at $.properties.x: ...`).
 * Duplicate fields inside a descriptor are caught by the frame decoder,
 * which refuses repeated keys anywhere in a frame.
 */
export function validateStdioTools(
  value: unknown,
): { ok: true; tools: StdioToolDescriptor[] } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  if (value === null) return fail('client_tools must be an array of descriptors, not null');
  if (!Array.isArray(value)) return fail('client_tools must be an array of descriptors');
  if (value.length > STDIO_LIMITS.tools)
    return fail(`client_tools holds ${value.length} descriptors; at most ${STDIO_LIMITS.tools}`);
  const tools: StdioToolDescriptor[] = [];
  const names = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const at = `client_tools[${i}]`;
    const d: unknown = value[i];
    if (!isObj(d)) return fail(`${at} must be an object`);
    for (const k of Object.keys(d))
      if (!DESCRIPTOR_KEYS.includes(k)) return fail(`${at}: unknown field "${k}"`);
    const { name, description, input_schema: schema } = d;
    if (typeof name !== 'string' || !STDIO_NAME_RE.test(name)) {
      return fail(
        `${at}.name must be "client__" followed by 1-56 ASCII letters, digits or underscores (at most ${STDIO_LIMITS.name_bytes} bytes)`,
      );
    }
    if (names.has(name)) return fail(`${at}.name "${name}" is registered twice`);
    names.add(name);
    if (typeof description !== 'string' || description.trim().length === 0)
      return fail(`${at}.description must be a non-blank string`);
    if (utf8(description) > STDIO_LIMITS.description_bytes)
      return fail(
        `${at}.description is ${utf8(description)} UTF-8 bytes; at most ${STDIO_LIMITS.description_bytes}`,
      );
    if (CONTROL.test(description))
      return fail(`${at}.description contains a control character (only LF and tab are allowed)`);
    if (!isObj(schema)) return fail(`${at}.input_schema must be an object schema`);
    const schemaBytes = utf8(JSON.stringify(schema));
    if (schemaBytes > STDIO_LIMITS.schema_bytes)
      return fail(
        `${at}.input_schema is ${schemaBytes} compact bytes; at most ${STDIO_LIMITS.schema_bytes}`,
      );
    const depth = depthOf(schema);
    if (depth > STDIO_LIMITS.schema_depth)
      return fail(
        `${at}.input_schema nests ${depth} containers; at most ${STDIO_LIMITS.schema_depth}`,
      );
    const problem = checkSchemaSubset(schema, STDIO_TOOL_SUBSET, { requireObjectRoot: true });
    if (problem) return fail(`${at}.input_schema ${formatSubsetProblem(problem)}`);
    const timeout = d.timeout_ms ?? STDIO_LIMITS.default_timeout_ms;
    if (
      typeof timeout !== 'number' ||
      !Number.isInteger(timeout) ||
      timeout < STDIO_LIMITS.min_timeout_ms ||
      timeout > STDIO_LIMITS.max_timeout_ms
    ) {
      return fail(
        `${at}.timeout_ms must be an integer from ${STDIO_LIMITS.min_timeout_ms} to ${STDIO_LIMITS.max_timeout_ms}`,
      );
    }
    tools.push({ name, description, input_schema: schema, timeout_ms: timeout });
  }
  const registryBytes = utf8(JSON.stringify(tools));
  if (registryBytes > STDIO_LIMITS.registry_bytes) {
    return fail(
      `the effective registry is ${registryBytes} compact bytes (timeouts included); at most ${STDIO_LIMITS.registry_bytes}`,
    );
  }
  return { ok: true, tools };
}

/** Arguments of one call: an object of at most arguments_bytes compact bytes. */
export function argumentsProblem(args: unknown): string | null {
  if (!isObj(args)) return 'arguments must be a JSON object';
  const n = utf8(JSON.stringify(args));
  return n > STDIO_LIMITS.arguments_bytes
    ? `arguments are ${n} compact bytes; at most ${STDIO_LIMITS.arguments_bytes}`
    : null;
}

/** result_bytes: UTF-8 bytes of text plus compact bytes of structured when present. */
export function resultBytes(text: string, structured: unknown, hasStructured: boolean): number {
  return utf8(text) + (hasStructured ? utf8(JSON.stringify(structured)) : 0);
}
