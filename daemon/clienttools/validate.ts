import { isWellFormedText, jsonBytes } from '../../catalog/limits.js';
import {
  CLIENT_TOOL_SUBSET,
  checkSchemaSubset,
  formatSubsetProblem,
} from '../../catalog/schema-subset.js';
import { ExecError } from '../errors/exec-error.js';
import { limitsOf } from '../../catalog/client-tool-limits.js';
import {
  GROUP_RE,
  TOOL_NAME_RE,
  type ClientToolSpec,
  type ContentBlock,
  type RegisterBody,
  type ResultBody,
} from './types.js';

/**
 * Decoding of the app-facing request bodies. Pure: every problem is an
 * ExecError whose message names the place (`tools[2].input_schema at
 * $.properties.ref.type: unknown type "bogus"`).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** The HTTP/SSE column of the one limits table; this file is the edge that spells timeouts in seconds. */
const LIMITS = limitsOf('sse');

function invalidTool(message: string): ExecError {
  return new ExecError('invalid_tool', message);
}

function onlyKeys(
  o: Obj,
  allowed: readonly string[],
  where: string,
  make: (m: string) => ExecError,
): void {
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) throw make(`${where}: unknown field "${k}"`);
}

/** client_id: required, a string (whether it is connected is the broker's question). */
export function clientIdOf(body: unknown): string {
  if (!isObj(body) || typeof body.client_id !== 'string' || body.client_id.length === 0) {
    throw new ExecError(
      'unknown_client',
      'client_id must name a connected client (the client_id of your event stream hello)',
    );
  }
  return body.client_id;
}

function toolSpec(v: unknown, i: number): ClientToolSpec {
  const where = `tools[${i}]`;
  if (!isObj(v)) throw invalidTool(`${where} must be an object`);
  onlyKeys(v, ['name', 'description', 'input_schema', 'timeout_s'], where, invalidTool);
  const { name, description, input_schema: schema } = v;
  if (typeof name !== 'string' || !TOOL_NAME_RE.test(name)) {
    throw invalidTool(`${where}.name must be 1-${LIMITS.nameBytes} letters, digits, "_" or "-"`);
  }
  if (typeof description !== 'string' || description.trim().length === 0)
    throw invalidTool(`${where}.description must be a non-blank string`);
  if (jsonBytes(description) > LIMITS.descriptionBytes || !isWellFormedText(description)) {
    throw invalidTool(
      `${where}.description is longer than ${LIMITS.descriptionBytes} bytes as JSON writes it, or holds an unpaired surrogate`,
    );
  }
  const timeout = v.timeout_s ?? LIMITS.defaultTimeoutMs / 1000;
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout < LIMITS.minTimeoutMs / 1000 ||
    timeout > LIMITS.maxTimeoutMs / 1000
  ) {
    throw invalidTool(
      `${where}.timeout_s must be an integer from 0 (never times out) to ${LIMITS.maxTimeoutMs / 1000}`,
    );
  }
  if (schema === undefined) throw invalidTool(`${where}.input_schema is required`);
  const problem = checkSchemaSubset(schema, CLIENT_TOOL_SUBSET, { requireObjectRoot: true });
  if (problem) throw invalidTool(`${where}.input_schema ${formatSubsetProblem(problem)}`);
  if (utf8(JSON.stringify(schema)) > LIMITS.schemaBytes)
    throw invalidTool(`${where}.input_schema is larger than ${LIMITS.schemaBytes} bytes`);
  return {
    name,
    description,
    input_schema: schema as Obj,
    timeoutMs: timeout === 0 ? null : timeout * 1000,
    relay: 'sse',
  };
}

/** POST /api/v1/client-tools. The 64-per-group limit is checked here; the daemon-wide one by the broker. */
export function decodeRegister(body: unknown): RegisterBody {
  if (!isObj(body)) throw invalidTool('the body must be an object {client_id, group, tools}');
  const client_id = clientIdOf(body);
  onlyKeys(body, ['client_id', 'group', 'tools'], 'body', invalidTool);
  if (typeof body.group !== 'string' || !GROUP_RE.test(body.group)) {
    throw invalidTool(`group must match ${GROUP_RE.source}`);
  }
  if (!Array.isArray(body.tools)) throw invalidTool('tools must be an array');
  if (body.tools.length > LIMITS.toolsPerRegistration) {
    throw new ExecError(
      'too_many_tools',
      `a group holds at most ${LIMITS.toolsPerRegistration} tools; this one has ${body.tools.length}`,
    );
  }
  const tools = body.tools.map(toolSpec);
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw invalidTool(`tool name "${t.name}" is listed twice`);
    seen.add(t.name);
  }
  return { client_id, group: body.group, tools };
}

function invalidResult(message: string): ExecError {
  return new ExecError('validation_failed', message);
}

function contentBlock(v: unknown, i: number): ContentBlock {
  const where = `content[${i}]`;
  if (!isObj(v)) throw invalidResult(`${where} must be an object`);
  if (v.type === 'text') {
    if (typeof v.text !== 'string') throw invalidResult(`${where}.text must be a string`);
  } else if (v.type === 'image') {
    if (typeof v.data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.data))
      throw invalidResult(`${where}.data must be base64`);
    if (typeof v.mimeType !== 'string' || !/^image\/[A-Za-z0-9.+-]+$/.test(v.mimeType))
      throw invalidResult(`${where}.mimeType must be an image/* type`);
  } else {
    throw invalidResult(`${where}.type must be "text" or "image"`);
  }
  return v as ContentBlock;
}

/** POST /api/v1/client-tools/requests/{id}/result. */
export function decodeResult(body: unknown): ResultBody {
  if (!isObj(body))
    throw invalidResult('the body must be an object {client_id, ok, content | error}');
  const client_id = clientIdOf(body);
  if (body.ok === true) {
    onlyKeys(body, ['client_id', 'ok', 'content'], 'body', invalidResult);
    if (!Array.isArray(body.content))
      throw invalidResult('content must be an array of MCP content blocks');
    return { client_id, ok: true, content: body.content.map(contentBlock) };
  }
  if (body.ok === false) {
    onlyKeys(body, ['client_id', 'ok', 'error'], 'body', invalidResult);
    const e = body.error;
    if (
      !isObj(e) ||
      typeof e.code !== 'string' ||
      !/^[a-z][a-z0-9_]{0,63}$/.test(e.code) ||
      typeof e.message !== 'string'
    ) {
      throw invalidResult('error must be {code: snake_case string, message: string}');
    }
    return { client_id, ok: false, error: { code: e.code, message: e.message } };
  }
  throw invalidResult('ok must be true or false');
}
