import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { Clock } from '../../lib/clock.js';
import type { NativeAnswer, NativeAsk } from '../approvals/ask.js';
import { askOrigin } from '../approvals/lookup.js';
import type { RuntimeEnv } from '../auth/principal.js';
import { ExecError } from '../errors/exec-error.js';
import { readRequestBody, RevokedError } from '../http/body.js';
import { forbidden } from '../http/runtime-auth.js';
import { NATIVE_APPROVAL_PATH } from '../http/paths.js';
import { decodeStrictJson } from '../http/strict-json.js';
import type { ResultGate } from '../results/gate.js';
import { claudeAsk, parseHookRequest, type HookRequest } from './native-claude.js';

/** The approval inbox's native side: files a runtime's own request and answers when it is settled. */
interface NativeAsker {
  ask(ask: NativeAsk, signal?: AbortSignal): Promise<NativeAnswer>;
}

/** What else the route uses: the gate and the clock. */
interface NativeApprovalDeps {
  readonly gate: ResultGate;
  readonly clock: Clock;
}

/** The longest one poll is held open; the hook asks again with the same key until there is an answer. */
const POLL_MS = 25_000;
/** How long a settled answer is kept for a poll whose response was lost on the way. */
const KEEP_SETTLED_MS = 10 * 60_000;
/** Requests one authorization may have waiting for a decision at once; one more is `busy`. */
const NATIVE_OUTSTANDING_MAX = 16;
/** Settled answers kept per authorization (the oldest go first), whatever their age. */
const SETTLED_KEPT_MAX = 1024;

interface Pending {
  /** SHA-256 of the body the key was first sent with: a repeat must match it (the body itself is not kept). */
  readonly digest: string;
  readonly answer: Promise<NativeAnswer>;
  settled: NativeAnswer | null;
}

/** One authorization's keys: how many wait for a decision, and the settled ones oldest first. */
interface Keys {
  open: number;
  readonly settled: Set<string>;
}

/** The keys of every authorization, bounded per authorization in both counts. */
class KeyBook {
  readonly entries = new Map<string, Pending>();
  private readonly byAuth = new Map<string, Keys>();

  /** Room for one more waiting request of `auth`? */
  hasRoom(auth: string): boolean {
    return (this.byAuth.get(auth)?.open ?? 0) < NATIVE_OUTSTANDING_MAX;
  }

  add(auth: string, id: string, entry: Pending): void {
    const keys = this.keysOf(auth);
    keys.open++;
    this.entries.set(id, entry);
  }

  /** The request was decided: kept for late polls, the oldest beyond the bound dropped. */
  settle(auth: string, id: string): void {
    const keys = this.keysOf(auth);
    keys.open--;
    keys.settled.add(id);
    for (const old of keys.settled) {
      if (keys.settled.size <= SETTLED_KEPT_MAX) break;
      this.forget(auth, old, this.entries.get(old)!);
    }
  }

  /**
   * Filing failed (`wasOpen`) or a settled answer's time is up. Only `entry`
   * itself goes: a key filed again after its answer was dropped is a new entry.
   */
  forget(auth: string, id: string, entry: Pending, wasOpen = false): void {
    const keys = this.byAuth.get(auth);
    if (!keys || this.entries.get(id) !== entry) return;
    this.entries.delete(id);
    if (wasOpen) keys.open--;
    keys.settled.delete(id);
    if (keys.open === 0 && keys.settled.size === 0) this.byAuth.delete(auth);
  }

  private keysOf(auth: string): Keys {
    let keys = this.byAuth.get(auth);
    if (!keys) {
      keys = { open: 0, settled: new Set() };
      this.byAuth.set(auth, keys);
    }
    return keys;
  }
}

/**
 * `POST {exec base}/native-approval`: Claude Code's permission prompt, as
 * the runtime's `agentteam approval hook` files it. The first call with a
 * key files the request in the approval inbox; every call with that key
 * (the first included) waits at most 25 s and answers `pending` or the
 * decision, so a retried or repeated poll never files twice. The same key
 * with another body is `idempotency_conflict`. Only a Claude runtime's
 * authorization may call it; one that answers no delivered turn (a person
 * runs Claude at a terminal) is told `pass`, and Claude Code asks that
 * person itself.
 */
export function registerNativeApprovalRoute(
  app: Hono<RuntimeEnv>,
  native: NativeAsker,
  services: NativeApprovalDeps,
): void {
  const keys = new KeyBook();
  const deps = { native, gate: services.gate, clock: services.clock };
  app.post(NATIVE_APPROVAL_PATH, (c) => nativeApproval(c, deps, keys));
}

async function nativeApproval(
  c: Context<RuntimeEnv>,
  deps: NativeApprovalDeps & { readonly native: NativeAsker },
  keys: KeyBook,
): Promise<Response> {
  const { principal, signal, runtime } = c.get('runtime');
  const fail = (err: ExecError, close = false): Response =>
    deps.gate.respond(
      deps.gate.errorEnvelope(err),
      err.status,
      close ? { 'content-type': 'application/json', connection: 'close' } : JSON_HEADERS,
    );
  if (runtime !== 'claude')
    return fail(
      new ExecError('forbidden', 'native approvals over Exec are filed by Claude Code runtimes'),
    );
  let request: HookRequest;
  let digest: string;
  try {
    const bytes = await readRequestBody(c, { clock: deps.clock, signal, counted: { bytes: 0 } });
    digest = createHash('sha256').update(bytes).digest('base64');
    request = parseHookRequest(decodeStrictJson(bytes));
  } catch (err) {
    if (err instanceof RevokedError || signal.aborted) return forbidden();
    if (err instanceof ExecError)
      return fail(err, err.code === 'body_too_large' || err.code === 'read_timeout');
    return fail(new ExecError('invalid_request', 'the body could not be read'), true);
  }
  if (!principal.turnId) return deps.gate.ok({ status: 'pass' });
  const auth = principal.authorizationId;
  const id = `${auth}\u0000${request.key}`;
  let entry = keys.entries.get(id);
  if (entry && entry.digest !== digest)
    return fail(
      new ExecError('idempotency_conflict', 'this key was used for another permission request'),
    );
  if (!entry) {
    if (!keys.hasRoom(auth))
      return fail(
        new ExecError(
          'busy',
          `${NATIVE_OUTSTANDING_MAX} permission requests of this runtime already wait for a decision`,
          { hint: 'Wait for one of them to be decided, then ask again.' },
        ),
      );
    // Who asks comes from the authorization; only the thread, subagent and what is asked from the hook.
    const ask = claudeAsk(request, askOrigin(principal, runtime));
    const created: Pending = { digest, answer: deps.native.ask(ask, signal), settled: null };
    keys.add(auth, id, created);
    created.answer.then(
      (answer) => {
        created.settled = answer;
        keys.settle(auth, id);
        deps.clock.setTimeout(() => keys.forget(auth, id, created), KEEP_SETTLED_MS).unref?.();
      },
      () => keys.forget(auth, id, created, true),
    );
    entry = created;
  }
  const answer = await waitFor(entry, deps.clock, signal);
  if (signal.aborted) return forbidden();
  if (answer === 'failed') return fail(new ExecError('internal', 'the request could not be filed'));
  return deps.gate.ok(answer === null ? { status: 'pending' } : { status: 'decided', answer });
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The answer, null when the poll's 25 s pass first, `failed` when filing threw. */
function waitFor(
  entry: Pending,
  clock: Clock,
  signal: AbortSignal,
): Promise<NativeAnswer | null | 'failed'> {
  if (entry.settled) return Promise.resolve(entry.settled);
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => done(null), POLL_MS);
    const onAbort = () => done(null);
    signal.addEventListener('abort', onAbort, { once: true });
    function done(value: NativeAnswer | null | 'failed'): void {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    }
    entry.answer.then(done, () => done('failed'));
  });
}
