import type { MiddlewareHandler } from 'hono';
import type { RuntimeEnv, RuntimeRequest } from '../auth/principal.js';
import type { AuthorizationStore, AuthResult } from '../auth/store.js';
import type { Authorization } from '../auth/authorization.js';
import { fixedResponse, JSON_TYPE, type FixedReply } from './reply.js';
import { MAX_TOKEN_BYTES } from '../auth/signer.js';
import type { Diag } from '../lifecycle/diag.js';

/**
 * The one answer to every authentication failure (missing, malformed, bad
 * signature, expired, revoked, wrong scope, wrong binding): identical bytes,
 * so a runtime cannot tell why. The reason goes to internal diagnostics only.
 */
export const FORBIDDEN_BODY =
  '{"ok":false,"error":{"code":"forbidden","message":"The credential is not accepted for this route."}}';
export const BUSY_BODY =
  '{"ok":false,"error":{"code":"busy","message":"Too many requests are in flight for this runtime or daemon; retry shortly."}}';

/** The credential refusal as a Reply (the Exec lane) and as a Response (hono routes). */
export const FORBIDDEN_REPLY = {
  status: 403,
  body: FORBIDDEN_BODY,
  headers: JSON_TYPE,
  fixed: true,
} as const satisfies FixedReply;
const BUSY_REPLY = {
  status: 409,
  body: BUSY_BODY,
  headers: JSON_TYPE,
  fixed: true,
} as const satisfies FixedReply;

export function forbidden(): Response {
  return fixedResponse(FORBIDDEN_REPLY);
}

/** `Bearer <token>` -> token; '' when absent or not a bearer header. Oversized headers are not split. */
function bearerToken(header: string | null | undefined): string {
  if (!header) return '';
  if (header.length > MAX_TOKEN_BYTES + 16) return header; // the store rejects it on length alone
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m ? m[1]! : '';
}

/** True when the raw (undecoded) path of `url` contains a percent escape. */
function hasEscapedPath(url: string): boolean {
  const start = url.indexOf('/', url.indexOf(':') + 3);
  for (let i = start; i >= 0 && i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 37) return true; // %
    if (ch === 63 || ch === 35) return false; // ? #
  }
  return false;
}

/** What a runtime request's credential and path come to: admitted (release the slot when done) or refused. */
export type Admission =
  | { readonly ok: true; readonly auth: Authorization; readonly runtime: RuntimeRequest }
  | { readonly ok: false; readonly reply: FixedReply };

/** The request as admission reads it. */
export interface AdmissionAsk {
  readonly authorization: string | null | undefined;
  readonly serverId: string | undefined;
  readonly agentId: string | undefined;
  /** The raw path held a percent escape. */
  readonly escaped: boolean;
  readonly path: string;
}

/**
 * Authenticates the runtime credential, checks that its server/agent binding
 * matches the path's, then takes an admission slot (32 per authorization,
 * 1024 per daemon) before anything reads the body. An admitted caller must
 * `store.release(auth)` when its answer is made, whatever the outcome. One
 * function for the hono middleware below and the Exec lane.
 */
export function runtimeAdmission(
  store: AuthorizationStore,
  diag: Diag,
): (ask: AdmissionAsk) => Admission | Promise<Admission> {
  const decide = (ask: AdmissionAsk, res: AuthResult): Admission => {
    if (!res.ok) {
      diag('auth_failed', { reason: res.reason, path: ask.path });
      return { ok: false, reply: FORBIDDEN_REPLY };
    }
    const auth = res.auth;
    const { principal } = auth;
    // Ids are never percent-encoded (catalog/ids.ts): an escaped path is an alias of some other spelling, refused.
    if (principal.serverId !== ask.serverId || principal.agentId !== ask.agentId || ask.escaped) {
      diag('auth_failed', { reason: 'binding', authorizationId: auth.id, path: ask.path });
      return { ok: false, reply: FORBIDDEN_REPLY };
    }
    if (!store.admit(auth)) {
      diag('busy', { authorizationId: auth.id });
      return { ok: false, reply: BUSY_REPLY };
    }
    // A revocation between authentication and admission has already reported its drain done.
    if (auth.signal.aborted) {
      store.release(auth);
      return { ok: false, reply: FORBIDDEN_REPLY };
    }
    const runtime: RuntimeRequest = {
      principal,
      signal: auth.signal,
      catalog: auth.catalog.catalog,
      runtime: auth.runtime,
      generationId: res.generationId,
    };
    return { ok: true, auth, runtime };
  };
  return (ask) => {
    const pending = store.authenticate(bearerToken(ask.authorization));
    return pending instanceof Promise
      ? pending.then((res) => decide(ask, res))
      : decide(ask, pending);
  };
}

/** `runtimeAdmission` as hono middleware, for every runtime path; the slot is released when the chain finishes. */
export function runtimeAuth(store: AuthorizationStore, diag: Diag): MiddlewareHandler<RuntimeEnv> {
  const admission = runtimeAdmission(store, diag);
  return async (c, next) => {
    const pending = admission({
      authorization: c.req.raw.headers.get('authorization'),
      serverId: c.req.param('serverId'),
      agentId: c.req.param('agentId'),
      escaped: hasEscapedPath(c.req.url),
      path: c.req.path,
    });
    const a = pending instanceof Promise ? await pending : pending;
    if (!a.ok) return fixedResponse(a.reply);
    try {
      c.set('runtime', a.runtime);
      await next();
      // Whatever the handler produced, nothing but the 403 leaves once the runtime is revoked.
      if (a.auth.signal.aborted) c.res = forbidden();
    } finally {
      store.release(a.auth);
    }
  };
}
