import type { MiddlewareHandler } from 'hono';
import type { ErrorBody } from '../../catalog/envelope.js';
import { ExecError, errorBody } from '../errors.js';
import { boundSerialized, RESULT_BUDGET_BYTES, type BoundaryOptions, type BoundaryOutcome, type BoundaryPolicy } from '../exec/result-boundary.js';
import { MaskError, maskValue } from './mask.js';
import type { Matcher, SecretSet } from './secrets.js';
import type { SpillStore } from './spill.js';
import { boundText, type BoundedText } from './text.js';
import { lineMasker } from './stream.js';
import { inSpan } from '../telemetry/tracing.js';

const UNMASKABLE = 'a result held a secret that could not be masked without changing its structure; it was not sent';

/**
 * The one gate every result leaves the daemon through: secrets are masked by
 * value first, then the size is bounded. Product JSON keeps the 64 KiB
 * never-truncate rule (daemon/exec/result-boundary.ts); tool text keeps head
 * and tail and spills the whole. `middleware()` screens every HTTP response
 * on its way out, so a route that forgets the typed helpers still cannot
 * leak; responses made by `respond()` were masked already and pass as is.
 */
export class ResultGate {
  private readonly produced = new WeakSet<Response>();

  constructor(readonly secrets: SecretSet, readonly spill: SpillStore) {}

  /** Changes whenever the set of masked values changes (for caches of gated output). */
  get generation(): number {
    return this.secrets.generation;
  }

  /** Product JSON: serialize once, mask (every string, keys included) if a secret occurs, then bound. */
  json(policy: BoundaryPolicy, input: unknown, data: unknown, opts: BoundaryOptions = {}): BoundaryOutcome {
    return inSpan('result_gate', {}, () => this.gateJson(policy, input, data, opts));
  }

  private gateJson(policy: BoundaryPolicy, input: unknown, data: unknown, opts: BoundaryOptions): BoundaryOutcome {
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
      if (body !== undefined && m.test(body)) return { ok: false, error: new ExecError('internal', UNMASKABLE) };
    }
    // The complete frame as sent (MCP: text copy and structuredContent) is what the budget measures.
    if (body !== undefined && opts.frame) body = opts.frame(body);
    return boundSerialized(policy, input, data, body, opts);
  }

  /** Tool text (a command's output, a client tool's text): masked, then head + tail within `limitBytes`, the whole spilled. */
  text(text: string, limitBytes: number): BoundedText {
    return boundText(this.maskText(text), limitBytes, this.spill);
  }

  /**
   * MCP content blocks from outside the daemon (a client tool's answer):
   * every string masked, keys included; text blocks bounded like tool text.
   */
  content(blocks: readonly unknown[], textLimitBytes: number): unknown[] {
    const masked = this.maskJson(blocks as unknown[]);
    return masked.map((b) => {
      const block = b as { type?: unknown; text?: unknown };
      if (block === null || typeof block !== 'object' || block.type !== 'text' || typeof block.text !== 'string') return b;
      return { ...block, text: boundText(block.text, textLimitBytes, this.spill).text };
    });
  }

  maskText(text: string): string {
    return this.secrets.matcher().replace(text);
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

  /** A response whose body already passed the gate. */
  respond(body: string, status: number, headers: Record<string, string> = { 'content-type': 'application/json' }): Response {
    const res = new Response(body, { status, headers });
    this.produced.add(res);
    return res;
  }

  /** A JSON response screened here, as a string (cheaper than the middleware's read-back of a Response). */
  respondScreened(body: string, status: number): Response {
    const out = this.screenBody(body, 'application/json');
    return this.respond(out.body, out.status ?? status);
  }

  /** Screens a serialized body (JSON or text) that did not pass the typed helpers. */
  screenBody(text: string, contentType: string): { status?: number; body: string } {
    const m = this.secrets.matcher();
    if (!m.test(text)) return { body: text };
    if (!/json/i.test(contentType)) return { body: m.replace(text) };
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { body: m.replace(text) };
    }
    return this.screenDoc(doc, m);
  }

  private screenDoc(doc: unknown, m: Matcher): { status?: number; body: string } {
    try {
      const body = JSON.stringify(maskValue(doc, m));
      if (!m.test(body)) return { body };
    } catch (err) {
      if (!(err instanceof MaskError)) throw err;
    }
    const rpc = doc !== null && typeof doc === 'object' && 'jsonrpc' in doc;
    if (rpc) {
      const id = (doc as { id?: unknown }).id;
      const safeId = typeof id === 'number' ? id : null;
      return { body: JSON.stringify({ jsonrpc: '2.0', id: safeId, error: { code: -32603, message: UNMASKABLE } }) };
    }
    return { status: 500, body: JSON.stringify({ ok: false, error: { code: 'internal', message: UNMASKABLE } }) };
  }

  /** Hono middleware for every route: mounted first, so it sees each response last. */
  middleware(): MiddlewareHandler {
    const gate = this;
    const screen: MiddlewareHandler = async (c, next) => {
      await next();
      const res = c.res;
      if (gate.produced.has(res) || res.body === null) return;
      if (gate.secrets.matcher().size === 0) return;
      const type = res.headers.get('content-type') ?? '';
      let next2: Response;
      if (/ndjson|event-stream/i.test(type)) {
        next2 = new Response(res.body.pipeThrough(lineMasker(() => gate.secrets.matcher())), { status: res.status, headers: res.headers });
      } else {
        const out = gate.screenBody(await res.text(), type);
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
export const isGateMiddleware = (h: unknown): boolean => typeof h === 'function' && GATE_MIDDLEWARE.has(h);
