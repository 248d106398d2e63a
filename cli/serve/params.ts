import type { ErrorCode } from '../../catalog/errors.js';
import { STDIO_IDENTITY_KEYS, stdioCallSchema } from '../../catalog/operator/stdio-call.js';
import {
  CLIENT_TOOLS_CAPABILITY,
  STDIO_CAPABILITIES,
  STDIO_LIMITS,
  STDIO_WIRE,
  resultBytes,
  validateStdioTools,
  type StdioToolDescriptor,
} from '../../catalog/stdio-tools.js';

/**
 * The parameters of the stdio session's methods, checked before anything
 * happens: each problem is an RpcFailure naming the field, in the words of
 * the stdio contract. What needs the session's state (which calls are open)
 * is checked by the session.
 */

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export class RpcFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `client.tool.result`: the instance, the call's identity (catalog/operator/stdio-call.ts), the answer. */
const RESULT_KEYS: readonly string[] = [
  'instance_id',
  ...STDIO_IDENTITY_KEYS,
  'status',
  'text',
  'structured',
];

/** The identity fields that may be null (every one but call_id), as the schema types them. */
const NULLABLE_KEYS = STDIO_IDENTITY_KEYS.filter((k) => {
  const type: unknown = stdioCallSchema.properties[k].type;
  return Array.isArray(type) && type.includes('null');
});

/** What `initialize` negotiates: the capabilities required (in the app's order) and the client tools to register (null without client.tools). */
interface Negotiated {
  readonly capabilities: string[];
  readonly tools: StdioToolDescriptor[] | null;
}

/** `initialize`: every capability required must be one this child provides; the registry is checked whole. */
export function initializeParams(params: unknown): Negotiated {
  const p = params === undefined ? {} : params;
  if (!isObj(p)) throw new RpcFailure('invalid_params', 'params must be an object');
  const caps = p.required_capabilities ?? [];
  if (!Array.isArray(caps) || !caps.every((c) => typeof c === 'string'))
    throw new RpcFailure('invalid_params', 'required_capabilities must be an array of strings');
  const wants = caps.includes(CLIENT_TOOLS_CAPABILITY);
  const max = wants
    ? STDIO_WIRE.requiredCapabilitiesWithClientTools
    : STDIO_WIRE.requiredCapabilities;
  if (caps.length > max)
    throw new RpcFailure(
      'invalid_params',
      `required_capabilities has ${caps.length} entries; at most ${max}${wants ? ' with client.tools' : ''}`,
    );
  if (new Set(caps).size !== caps.length)
    throw new RpcFailure('invalid_params', 'required_capabilities lists a capability twice');
  const served: readonly string[] = STDIO_CAPABILITIES;
  const missing = caps.filter((c) => !served.includes(c));
  if (missing.length > 0)
    throw new RpcFailure(
      'invalid_params',
      `this server does not provide the required capability ${JSON.stringify(missing[0])} (it provides ${served.map((c) => JSON.stringify(c)).join(', ')})`,
    );
  const has = Object.hasOwn(p, 'client_tools');
  if (!wants) {
    if (has)
      throw new RpcFailure(
        'invalid_params',
        'client_tools is only allowed when required_capabilities includes "client.tools"',
      );
    return { capabilities: caps, tools: null };
  }
  if (!has)
    throw new RpcFailure(
      'invalid_params',
      'client_tools is required when "client.tools" is negotiated ([] registers none)',
    );
  const checked = validateStdioTools(p.client_tools);
  if (!checked.ok) throw new RpcFailure('invalid_params', checked.message);
  return { capabilities: caps, tools: checked.tools };
}

/** `client.tool.result` with every field present and of its type, within the result budget. */
export function resultParams(
  params: unknown,
): Obj & { instance_id: string; call_id: string; status: 'success' | 'error'; text: string } {
  if (!isObj(params)) throw new RpcFailure('invalid_params', 'params must be an object');
  for (const k of Object.keys(params))
    if (!RESULT_KEYS.includes(k)) throw new RpcFailure('invalid_params', `unknown field "${k}"`);
  for (const k of RESULT_KEYS)
    if (k !== 'structured' && !Object.hasOwn(params, k))
      throw new RpcFailure('invalid_params', `${k} is required`);
  if (typeof params.instance_id !== 'string' || typeof params.call_id !== 'string')
    throw new RpcFailure('invalid_params', 'instance_id and call_id must be strings');
  for (const k of NULLABLE_KEYS) {
    if (params[k] !== null && typeof params[k] !== 'string')
      throw new RpcFailure('invalid_params', `${k} must be a string or null`);
  }
  if (params.status !== 'success' && params.status !== 'error')
    throw new RpcFailure('invalid_params', 'status must be "success" or "error"');
  if (typeof params.text !== 'string')
    throw new RpcFailure('invalid_params', 'text must be a string');
  const hasStructured = Object.hasOwn(params, 'structured');
  const bytes = resultBytes(params.text, params.structured, hasStructured);
  if (bytes > STDIO_LIMITS.result_bytes)
    throw new RpcFailure(
      'invalid_params',
      `the result is ${bytes} bytes (text plus structured); at most ${STDIO_LIMITS.result_bytes}`,
    );
  return params as Obj & {
    instance_id: string;
    call_id: string;
    status: 'success' | 'error';
    text: string;
  };
}
