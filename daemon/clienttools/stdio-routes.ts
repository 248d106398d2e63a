import { STDIO_LIMITS, resultBytes, validateStdioTools } from '../../catalog/stdio-tools.js';
import { FINGERPRINT_RE } from '../../catalog/tool-fingerprint.js';
import { ExecError } from '../errors/exec-error.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { ClientToolBroker } from './broker.js';
import { CLIENT_KEY_HEADER } from './clients.js';
import { fingerprintOf } from './exposure.js';
import { SCOPE_LIMITS, type DelegatedScopes } from './scopes.js';
import { clientIdOf } from './validate.js';
import { timeoutField } from './wire-spelling.js';
import type { ClientToolSpec, StdioReply } from './types.js';
import type { ResultGate } from '../results/gate.js';

/**
 * The routes a stdio child (`agentteam serve --stdio`, a CLI process that
 * talks to the daemon like any app) uses beside the event stream, and the
 * operator's view of fingerprints and saved delegated scopes:
 *
 * - POST /api/v1/client-tools/stdio {client_id, server_id?, tools}: the child's one
 *   registration, descriptors exactly as the stdio limits table allows
 *   (timeout_ms kept to the millisecond).
 * - POST /api/v1/client-tools/requests/{id}/reply {client_id, status, text, structured?}.
 * - GET /api/v1/client-tools: every offered tool with its fingerprint.
 * - PUT /api/v1/client-tools/scopes/{authorizationId}/{threadId}
 *   {task_id, tools: [{name, fingerprint}]}: a delegated thread's saved scope.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Authorization ids are 12 random bytes in base64url (daemon/auth/store.ts): any of them may begin with `-` or `_`. */
const AUTHORIZATION_ID_RE = /^[A-Za-z0-9_-]{16}$/;

interface StdioRouteDeps {
  readonly broker: ClientToolBroker;
  readonly scopes: DelegatedScopes;
  readonly gate: ResultGate;
  readonly checkNames: (group: string, tools: readonly ClientToolSpec[]) => void;
  /** Whether an id names a task of the store. */
  readonly taskExists: (id: string) => Promise<boolean>;
}

function onlyKeys(o: Obj, allowed: readonly string[], make: (m: string) => ExecError): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw make(`unknown field "${k}"`);
}

function decodeStdioRegistration(body: unknown): {
  client_id: string;
  server_id: string | null;
  tools: ClientToolSpec[];
} {
  const invalid = (m: string) => new ExecError('invalid_tool', m);
  if (!isObj(body)) throw invalid('the body must be an object {client_id, tools}');
  const client_id = clientIdOf(body);
  onlyKeys(body, ['client_id', 'server_id', 'tools'], invalid);
  const server_id = body.server_id ?? null;
  if (server_id !== null && (typeof server_id !== 'string' || !ID_RE.test(server_id)))
    throw invalid(`server_id must match ${ID_RE.source}`);
  const checked = validateStdioTools(body.tools);
  if (!checked.ok) throw invalid(checked.message);
  const tools = checked.tools.map(
    ({ timeout_ms, ...t }): ClientToolSpec => ({ ...t, timeoutMs: timeout_ms, relay: 'stdio' }),
  );
  return { client_id, server_id, tools };
}

function decodeStdioReply(body: unknown): StdioReply {
  const invalid = (m: string) => new ExecError('validation_failed', m);
  if (!isObj(body))
    throw invalid('the body must be an object {client_id, status, text, structured?}');
  const client_id = clientIdOf(body);
  onlyKeys(body, ['client_id', 'status', 'text', 'structured'], invalid);
  if (body.status !== 'success' && body.status !== 'error')
    throw invalid('status must be "success" or "error"');
  if (typeof body.text !== 'string') throw invalid('text must be a string');
  const has = Object.hasOwn(body, 'structured');
  const n = resultBytes(body.text, body.structured, has);
  if (n > STDIO_LIMITS.result_bytes)
    throw invalid(
      `the result is ${n} bytes (text plus structured); at most ${STDIO_LIMITS.result_bytes}`,
    );
  return {
    client_id,
    status: body.status,
    text: body.text,
    ...(has ? { structured: { value: body.structured } } : {}),
  };
}

function decodeScope(body: unknown): { task_id: string; tools: Map<string, string> } {
  const invalid = (m: string) => new ExecError('invalid_request', m);
  if (!isObj(body))
    throw invalid('the body must be an object {task_id, tools: [{name, fingerprint}]}');
  onlyKeys(body, ['task_id', 'tools'], invalid);
  if (typeof body.task_id !== 'string' || !ID_RE.test(body.task_id))
    throw invalid(`task_id must match ${ID_RE.source}`);
  if (!Array.isArray(body.tools) || body.tools.length > SCOPE_LIMITS.toolsPerScope)
    throw invalid(
      `tools must be an array of at most ${SCOPE_LIMITS.toolsPerScope} {name, fingerprint}`,
    );
  const tools = new Map<string, string>();
  body.tools.forEach((t: unknown, i: number) => {
    if (
      !isObj(t) ||
      typeof t.name !== 'string' ||
      typeof t.fingerprint !== 'string' ||
      !FINGERPRINT_RE.test(t.fingerprint) ||
      Object.keys(t).length !== 2
    ) {
      throw invalid(
        `tools[${i}] must be {name, fingerprint} with a lowercase hex SHA-256 fingerprint`,
      );
    }
    tools.set(t.name, t.fingerprint);
  });
  return { task_id: body.task_id, tools };
}

export function stdioHandlers(
  deps: StdioRouteDeps,
): Pick<
  OperatorHandlers,
  'clientTools.stdio' | 'clientTools.reply' | 'clientTools.offered' | 'clientTools.scope'
> {
  const { broker, scopes, gate, taskExists } = deps;
  return {
    'clientTools.stdio': ({ body: raw }, c) => {
      const body = decodeStdioRegistration(raw);
      return gate.ok(
        broker.registerStdio(
          body.client_id,
          c.req.header(CLIENT_KEY_HEADER),
          body.tools,
          deps.checkNames,
          body.server_id,
        ),
      );
    },
    'clientTools.reply': ({ params, body }, c) =>
      gate.ok(broker.reply(params.id, decodeStdioReply(body), c.req.header(CLIENT_KEY_HEADER))),
    'clientTools.offered': () => {
      const tools = broker.offered().map(({ group, tool }) => ({
        name: tool.name,
        group,
        fingerprint: fingerprintOf(tool),
        ...timeoutField(tool),
      }));
      return gate.ok({ revision: broker.revision, tools });
    },
    'clientTools.scope': async ({
      params: { authorizationId: authorization_id, threadId: thread_id },
      body,
    }) => {
      if (!AUTHORIZATION_ID_RE.test(authorization_id))
        throw new ExecError(
          'invalid_request',
          `the authorization id must match ${AUTHORIZATION_ID_RE.source}`,
        );
      if (!ID_RE.test(thread_id))
        throw new ExecError('invalid_request', `the thread id must match ${ID_RE.source}`);
      const { task_id, tools } = decodeScope(body);
      if (!(await taskExists(task_id)))
        throw new ExecError('invalid_request', `task_id "${task_id}" is not a task of the store`);
      scopes.save({ authorization_id, thread_id, task_id, tools });
      return gate.ok({
        authorization_id,
        thread_id,
        task_id,
        tools: [...tools].map(([name, fingerprint]) => ({ name, fingerprint })),
      });
    },
  };
}
