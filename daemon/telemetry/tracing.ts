import { isThenable } from '../../lib/thenable.js';

/**
 * The tracing seam. `tracing` stays null unless OTLP trace export is
 * configured, and every helper here then costs one null check: no SDK is
 * loaded, no context is carried, nothing is allocated. When it is set (by
 * sdk.ts, loaded with a dynamic import at daemon start), spans are created
 * and the active one follows the async work of its request.
 */

export type SpanAttrs = Record<string, string | number | boolean>;

/** A W3C trace context as it arrives on a request. */
export interface Carrier {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

export interface SpanHandle {
  set(attrs: SpanAttrs): void;
  rename(name: string): void;
  /** Marks the span failed with a low-cardinality error type (an error code, never a message). */
  fail(errorType: string): void;
  end(): void;
}

export interface Tracing {
  /** A server span: the child of `carrier` when it holds a valid traceparent, else a new trace. */
  server(name: string, attrs: SpanAttrs, carrier: Carrier | undefined): SpanHandle;
  /** An internal span that starts a trace of its own (a delivered turn, the parent of its runtime's calls). */
  root(name: string, attrs: SpanAttrs): SpanHandle;
  /** A span under the active one (internal or client kind). */
  child(name: string, attrs: SpanAttrs, kind: 'internal' | 'client' | 'producer'): SpanHandle;
  /** Runs `fn` with `span` as the active span, through everything it awaits (request-context.ts says what that costs). */
  within<T>(span: SpanHandle, fn: () => T): T;
  /** Runs synchronous `fn` with `span` as the active span; free of async hooks. */
  withinSync<T>(span: SpanHandle, fn: () => T): T;
  /** The active span's context as W3C headers, if a sampled or recorded span is active. */
  inject(): { traceparent: string; tracestate?: string } | undefined;
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

export function tracing(): Tracing | null {
  return active;
}

export function setTracing(t: Tracing | null): void {
  active = t;
}

/**
 * Whether a text holds a value the result gate masks; set at daemon start.
 * Until it is set no caller's tracestate is carried at all (fail closed).
 */
let carriesSecret: (text: string) => boolean = () => true;

export function screenTraceState(carries: (text: string) => boolean): void {
  carriesSecret = carries;
}

/**
 * The caller's context as the daemon continues it. Its `tracestate` goes
 * into every span's traceState (exported over OTLP) and on to every
 * upstream, so one that carries a masked value (a runtime's own token,
 * planted there) is dropped whole. A value may not fit one list member (at
 * most 256 characters) and be split over several, so the member values
 * joined in order are checked as well as the header as sent. Only values
 * are joined: keys are lowercase letters, digits and `_-*\/` and cannot
 * hold a token's other characters. Pieces placed apart with other text
 * between are not recognised, as nowhere else the gate masks by value.
 */
export function screenedCarrier(carrier: Carrier | undefined): Carrier | undefined {
  const ts = carrier?.tracestate;
  if (ts === undefined) return carrier;
  const joined = ts
    .split(',')
    .map((m) => m.slice(m.indexOf('=') + 1).trim())
    .join('');
  return carriesSecret(ts) || carriesSecret(joined)
    ? { traceparent: carrier!.traceparent }
    : carrier;
}

/** The error type a thrown value is recorded under: its closed-set code, else its class name. */
function errorTypeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code)) return code;
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'internal';
}

/**
 * Runs `fn` (synchronous or async) inside a child span of the active span.
 * Without tracing, or without an active request span, it is just `fn()`.
 */
export function inSpan<T>(
  name: string,
  attrs: SpanAttrs,
  fn: () => T,
  kind: 'internal' | 'client' | 'producer' = 'internal',
): T {
  const t = active;
  if (t === null) return fn();
  const span = t.child(name, attrs, kind);
  let out: T;
  try {
    out = t.within(span, fn);
  } catch (err) {
    span.fail(errorTypeOf(err));
    span.end();
    throw err;
  }
  if (!isThenable(out)) {
    span.end();
    return out;
  }
  return (out as unknown as Promise<unknown>).then(
    (v) => {
      span.end();
      return v;
    },
    (err: unknown) => {
      span.fail(errorTypeOf(err));
      span.end();
      throw err;
    },
  ) as T;
}

/** `inSpan` for synchronous work (the result gate): the span is active during `fn` only, at no async-hook cost. */
export function inSyncSpan<T>(name: string, attrs: SpanAttrs, fn: () => T): T {
  const t = active;
  if (t === null) return fn();
  const span = t.child(name, attrs, 'internal');
  try {
    return t.withinSync(span, fn);
  } catch (err) {
    span.fail(errorTypeOf(err));
    throw err;
  } finally {
    span.end();
  }
}

/** `headers` plus the active span's traceparent (and tracestate) for an outbound HTTP call. */
export function withTraceHeaders<H extends Record<string, string>>(headers: H): H {
  const ctx = active?.inject();
  return ctx ? { ...headers, ...ctx } : headers;
}

/** The active span's context for a JSON `_meta` (client-tool calls), or undefined. */
export function traceMeta(): { traceparent: string; tracestate?: string } | undefined {
  return active?.inject();
}
