import type { MiddlewareHandler } from 'hono';
import type { RuntimeEnv } from '../auth/principal.js';
import type { AuthorizationStore } from '../auth/store.js';
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

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export function forbidden(): Response {
  return new Response(FORBIDDEN_BODY, { status: 403, headers: JSON_HEADERS });
}

function busy(): Response {
  return new Response(BUSY_BODY, { status: 409, headers: JSON_HEADERS });
}

/** `Bearer <token>` -> token; '' when absent or not a bearer header. Oversized headers are not split. */
function bearerToken(header: string | null): string {
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

/**
 * Authenticates the runtime credential, checks that its server/agent binding
 * matches `:serverId`/`:agentId` in the path, then takes an admission slot
 * (32 per authorization, 1024 per daemon) before anything reads the body.
 * The slot is released when the handler chain finishes, whatever the outcome.
 */
export function runtimeAuth(store: AuthorizationStore, diag: Diag): MiddlewareHandler<RuntimeEnv> {
  return async (c, next) => {
    const pending = store.authenticate(bearerToken(c.req.raw.headers.get('authorization')));
    const res = pending instanceof Promise ? await pending : pending;
    if (!res.ok) {
      diag('auth_failed', { reason: res.reason, path: c.req.path });
      return forbidden();
    }
    const auth = res.auth;
    const { principal } = auth;
    // Ids are never percent-encoded (catalog/ids.ts): an escaped path is an alias of some other spelling, refused.
    if (
      principal.serverId !== c.req.param('serverId') ||
      principal.agentId !== c.req.param('agentId') ||
      hasEscapedPath(c.req.url)
    ) {
      diag('auth_failed', { reason: 'binding', authorizationId: auth.id, path: c.req.path });
      return forbidden();
    }
    if (!store.admit(auth)) {
      diag('busy', { authorizationId: auth.id });
      return busy();
    }
    try {
      // A revocation between authentication and admission has already reported its drain done.
      if (auth.signal.aborted) return forbidden();
      c.set('runtime', {
        principal,
        signal: auth.signal,
        catalog: auth.catalog.catalog,
        runtime: auth.runtime,
        generationId: res.generationId,
      });
      await next();
      // Whatever the handler produced, nothing but the 403 leaves once the runtime is revoked.
      if (auth.signal.aborted) c.res = forbidden();
    } finally {
      store.release(auth);
    }
  };
}
