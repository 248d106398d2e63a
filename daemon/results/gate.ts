import type { MiddlewareHandler } from 'hono';
import type { ErrorBody } from '../../catalog/envelope.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import { clipJson } from '../../catalog/limits.js';
import {
  boundSerialized,
  type BoundaryOptions,
  type BoundaryOutcome,
  type BoundaryPolicy,
} from './boundary.js';
import { MaskError, maskValue } from '../masking/mask.js';
import { cutOutsideLabel, type Masked } from '../masking/masked.js';
import type { SecretSet } from '../masking/secrets.js';
import type { SpillStore } from './spill.js';
import { boundText, tailOf, type BoundedText } from './text.js';
import { lineMasker } from '../masking/stream.js';
import { screenSerialized, UNMASKABLE } from './screen.js';
import { screenToolAnswer, type ToolAnswer } from './tool-answer.js';
import { boundToolError } from './tool-frame.js';
import { inSyncSpan, tracing } from '../telemetry/tracing.js';

const NO_OPTIONS: BoundaryOptions = Object.freeze({});

/**
 * The one gate every result leaves the daemon through: secrets are masked by
 * value first, then the size is bounded. Product JSON keeps the 64 KiB
 * never-truncate rule (daemon/results/boundary.ts); tool text keeps head
 * and tail and spills the whole. `middleware()` screens every HTTP response
 * on its way out, so a route that forgets the typed helpers still cannot
 * leak; responses made by `respond()` were masked already and pass as is.
 *
 * Mask first, always: every operation here that cuts, quotes, clips or pages
 * text masks the whole of it before choosing where to cut, so a cut can
 * never split a secret into pieces the matcher no longer recognizes.
 * Producers hand raw text or JSON in and get `Masked` text out; nothing
 * outside daemon/results/ can make a `Masked` value.
 */
export class ResultGate {
  /** Marks a response this gate made (`respond`): a property on it, cheaper than a WeakSet entry per call. */
  private readonly produced = Symbol('agentteam.gated');
  private readonly reused = new WeakMap<
    object,
    { gen: number; policy: BoundaryPolicy; opts: BoundaryOptions; out: BoundaryOutcome }
  >();
  private seen = 0;

  constructor(
    readonly secrets: SecretSet,
    readonly spill: SpillStore,
  ) {}

  /** How many HTTP responses have left through the middleware or the Exec lane (a test checks that every request adds one). */
  get responses(): number {
    return this.seen;
  }

  /** Counts a response that left without the middleware (the Exec lane, whose bodies the gate made). */
  sent(): void {
    this.seen++;
  }

  /** Changes whenever the set of masked values changes (for caches of gated output). */
  get generation(): number {
    return this.secrets.generation;
  }

  /**
   * Product JSON: serialize once, mask (every string, keys included) if a
   * secret occurs, then bound.
   *
   * A read may hand back the very same object again (a cache's entry: the
   * task store's recent tasks, the message store's newest pages, frozen all
   * the way down). For a read policy, that object's screened answer is kept,
   * weakly and by identity, and given again while the set of masked values
   * and the policy and options objects are the same. Only successes are
   * kept: an over-budget answer's advice depends on the input. A reused
   * answer passed the gate when it was made, so no `result_gate` span is
   * recorded for it.
   */
  json(
    policy: BoundaryPolicy,
    input: unknown,
    data: unknown,
    opts: BoundaryOptions = NO_OPTIONS,
  ): BoundaryOutcome {
    const reusable = policy.risk === 'read' && data !== null && typeof data === 'object';
    const gen = reusable ? this.secrets.generation : 0;
    if (reusable) {
      const known = this.reused.get(data);
      if (
        known !== undefined &&
        known.gen === gen &&
        known.policy === policy &&
        known.opts === opts
      )
        return known.out;
    }
    // Without tracing, no span closure or attribute record per call.
    const out =
      tracing() === null
        ? this.gateJson(policy, input, data, opts)
        : inSyncSpan('result_gate', {}, () => this.gateJson(policy, input, data, opts));
    if (reusable && out.ok) this.reused.set(data, { gen, policy, opts, out });
    return out;
  }

  private gateJson(
    policy: BoundaryPolicy,
    input: unknown,
    data: unknown,
    opts: BoundaryOptions,
  ): BoundaryOutcome {
    const wrap = opts.wrap ?? ((d: unknown) => ({ ok: true, data: d }));
    const serialize = (d: unknown) => {
      try {
        return d === undefined ? undefined : JSON.stringify(wrap(d));
      } catch {
        return undefined;
      }
    };
    let body = serialize(data);
    const m = this.secrets.matcher();
    if (body !== undefined && m.test(body)) {
      try {
        data = this.maskJson(data);
      } catch (err) {
        if (err instanceof ExecError) return { ok: false, error: err };
        throw err;
      }
      body = serialize(data);
      if (body !== undefined && m.test(body))
        return { ok: false, error: new ExecError('internal', UNMASKABLE) };
    }
    // The complete frame as sent (MCP: text copy and structuredContent) is what the budget measures.
    if (body !== undefined && opts.frame) body = opts.frame(body);
    return boundSerialized(policy, input, data, body as Masked | undefined, opts);
  }

  /** Tool text (a command's output, a client tool's text): masked, then head + tail within `limitBytes`, the whole spilled. */
  text(text: string, limitBytes: number): BoundedText {
    return boundText(this.maskText(text), limitBytes, this.spill);
  }

  /** The last `bytes` UTF-8 bytes of text, cut after masking and never inside a `[NAME]` (a failing command's stderr). */
  quoteTail(text: string, bytes: number): Masked {
    return tailOf(this.maskText(text), bytes);
  }

  /** Text clipped to a JSON-spelled size with an ellipsis (a quoted error message), cut after masking and outside any `[NAME]`. */
  clip(text: string, l: { chars: number; bytes: number }): Masked {
    const masked = this.maskText(text);
    const clipped = clipJson(masked, l);
    if (clipped === masked) return masked;
    const kept = clipped.slice(0, -1);
    if (!masked.startsWith(kept)) return clipped as Masked;
    return `${masked.slice(0, cutOutsideLabel(masked, kept.length, 'start'))}…` as Masked;
  }

  /**
   * A whole document masked before anything is chunked, paged or indexed
   * from it: each secret becomes its `[NAME]` followed by the line breaks it
   * held, so line numbers counted on the masked text are the file's own.
   */
  document(text: string): Masked {
    return this.secrets.matcher().replaceKeepingLines(text) as Masked;
  }

  /** The `[NAME]` labels masking writes now (for producers that mark masked text: a marker never lands inside one). */
  labels(): readonly string[] {
    return this.secrets.matcher().labels;
  }

  /** Changes when a value that masked text kept on disk may hold changes (issued tokens excluded). */
  fingerprint(): string {
    return this.secrets.fingerprint();
  }

  /**
   * An app's answer to a client tool call as the agent's MCP CallToolResult
   * (tool-answer.ts): masked, credential fields redacted, bounded as a whole
   * with spills; throws validation_failed when that cannot be done without
   * losing something.
   */
  toolAnswer(answer: ToolAnswer): Masked {
    return screenToolAnswer(answer, this.secrets.matcher(), this.spill);
  }

  /**
   * An app's own error ({code, message}) as the agent's tool error, in the
   * format of every tool error (tool-frame.ts): masked, the message bounded
   * with a spill when it does not fit the result budget.
   */
  toolError(error: { readonly code: string; readonly message: string }): Masked {
    const code = this.maskText(error.code);
    return boundToolError({ code, message: this.maskText(error.message) }, this.spill);
  }

  maskText(text: string): Masked {
    return this.secrets.matcher().replace(text) as Masked;
  }

  /** Any JSON value (events, operator data): masked copy; throws ExecError when it cannot be masked intact. */
  maskJson<T>(value: T): T {
    const m = this.secrets.matcher();
    if (m.size === 0) return value;
    try {
      return maskValue(value, m) as T;
    } catch (err) {
      if (err instanceof MaskError) throw new ExecError('internal', UNMASKABLE);
      throw err;
    }
  }

  /** The wire error body of any thrown value, masked (messages may quote caller input). */
  error(err: unknown): ErrorBody {
    const body = errorBody(err);
    try {
      return this.maskJson(body);
    } catch {
      return { code: 'internal', message: UNMASKABLE };
    }
  }

  /** The `{ok: false, error}` envelope of any thrown value, masked. */
  errorEnvelope(err: unknown): Masked {
    return JSON.stringify({ ok: false, error: this.error(err) }) as Masked;
  }

  /** A response whose body already passed the gate. */
  respond(
    body: Masked,
    status: number,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ): Response {
    const res = new Response(body, { status, headers });
    (res as unknown as Record<symbol, true>)[this.produced] = true;
    return res;
  }

  /** `{ok: true, data}` screened where it is made: for routes on a hot path, which the middleware would otherwise read back. */
  ok(data: unknown): Response {
    return this.respondScreened(JSON.stringify({ ok: true, data }), 200);
  }

  /** A JSON response screened here, as a string (cheaper than the middleware's read-back of a Response). */
  respondScreened(body: string, status: number): Response {
    const out = this.screenBody(body, 'application/json');
    return this.respond(out.body, out.status ?? status);
  }

  /** Screens a serialized body (JSON or text) that did not pass the typed helpers. */
  screenBody(text: string, contentType: string): { status?: number; body: Masked } {
    return screenSerialized(text, contentType, this.secrets.matcher());
  }

  /** Hono middleware for every route: mounted first, so it sees each response last. */
  middleware(): MiddlewareHandler {
    const screen: MiddlewareHandler = async (c, next) => {
      await next();
      this.seen++;
      const res = c.res;
      if ((res as unknown as Record<symbol, true>)[this.produced] || res.body === null) return;
      if (this.secrets.matcher().size === 0) return;
      const type = res.headers.get('content-type') ?? '';
      let next2: Response;
      if (/ndjson|event-stream/i.test(type)) {
        next2 = new Response(res.body.pipeThrough(lineMasker(() => this.secrets.matcher())), {
          status: res.status,
          headers: res.headers,
        });
      } else {
        const out = this.screenBody(await res.text(), type);
        next2 = new Response(out.body, { status: out.status ?? res.status, headers: res.headers });
      }
      c.res = undefined;
      c.res = next2;
    };
    GATE_MIDDLEWARE.add(screen);
    return screen;
  }
}

/** The gate's middleware instances, so a test can find the gate in a route table. */
const GATE_MIDDLEWARE = new WeakSet<object>();
export const isGateMiddleware = (h: unknown): boolean =>
  typeof h === 'function' && GATE_MIDDLEWARE.has(h);
