import type {
  OperatorEventOf,
  OperatorInputOf,
  OperatorMethod,
  OperatorOutputOf,
} from '../catalog/operator/route.js';
import type { OperatorRouteName, OperatorRouteOf } from '../catalog/operator/table.js';
import { sseData } from './event-stream.js';
import { OPERATOR_PATHS } from './operator-paths.js';

/**
 * The one typed client of the operator API (`/api/v1`), for the CLI, the
 * console and the test harness. A call names a row of catalog/operator/ and
 * gives its input; the answer's type is the row's output schema. Types come
 * from the table by `import type`; at run time this module loads only the
 * generated method/path index (lib/operator-paths.ts): no schema, no ajv.
 * How bytes travel is the caller's transport: node:http in the CLI, the
 * app's own fetch in the console, fetch in the tests. A streaming row's
 * events are read here too (lib/event-stream.ts), from the text a stream
 * transport hands over.
 */

/** One request as the transport sends it: the path carries the query; the body is JSON text. */
export interface OperatorRequest {
  readonly method: OperatorMethod;
  readonly path: string;
  readonly body?: string;
}

/** What came back: the status and the body parsed as JSON (null when empty). */
export interface OperatorAnswer {
  readonly status: number;
  readonly json: unknown;
}

type OperatorTransport = (req: OperatorRequest) => Promise<OperatorAnswer>;

/** A streamed answer as the transport opened it: the status, then the body's text in chunks. */
export interface OperatorStream {
  readonly status: number;
  /** Ends when the daemon ends the body; throws when the connection fails or `signal` aborts it. */
  readonly chunks: AsyncIterable<string>;
}

/** Opens one streamed request; aborting `signal` closes it, whatever its moment. */
type OperatorStreamTransport = (
  req: OperatorRequest,
  signal: AbortSignal,
) => Promise<OperatorStream>;

/** The rows whose answer is a stream of server-sent events. */
type OperatorSseName = {
  [N in OperatorRouteName]: OperatorRouteOf<N> extends { readonly stream: { readonly kind: 'sse' } }
    ? N
    : never;
}[OperatorRouteName];

/** One event as the daemon frames it (`{seq, type, data}`), its data typed by the row. */
export interface OperatorEvent<N extends OperatorSseName> {
  readonly seq: number;
  readonly type: string;
  readonly data: OperatorEventOf<OperatorRouteOf<N>>;
}

/**
 * The events of one stream, in order: the iteration ends when the daemon ends
 * the stream or after close(), and throws when the connection fails (an
 * OperatorCallError when the daemon refused to open it).
 */
export interface OperatorEvents<N extends OperatorSseName> extends AsyncIterable<OperatorEvent<N>> {
  close(): void;
}

/** What a caller gives for a row: `params`, `query` and `body` as the row has them. */
export type OperatorCallInput<N extends OperatorRouteName> = OperatorInputOf<OperatorRouteOf<N>>;
export type OperatorCallOutput<N extends OperatorRouteName> = OperatorOutputOf<OperatorRouteOf<N>>;

/** The envelope of one answer, typed by the row. */
export type OperatorEnvelope<N extends OperatorRouteName> =
  | { readonly ok: true; readonly data: OperatorCallOutput<N> }
  | {
      readonly ok: false;
      readonly error: {
        readonly code: string;
        readonly message: string;
        readonly [k: string]: unknown;
      };
    };

/** An answer whose envelope says ok: false. */
export class OperatorCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The method, path (parameters filled, query appended) and body of one call. */
export function operatorRequest<N extends OperatorRouteName>(
  name: N,
  input: OperatorCallInput<N>,
): OperatorRequest {
  const { method, path } = OPERATOR_PATHS[name];
  const i = input as {
    params?: Record<string, string>;
    query?: Record<string, string | undefined>;
    body?: unknown;
  };
  const filled = path.replace(/:([A-Za-z]+)/g, (_m, k: string) => {
    const v = i.params?.[k];
    if (v === undefined) throw new Error(`${name}: path parameter ${k} is missing`);
    return encodeURIComponent(v);
  });
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(i.query ?? {})) if (v !== undefined) q.set(k, v);
  const qs = q.toString();
  return {
    method,
    path: qs ? `${filled}?${qs}` : filled,
    ...(i.body !== undefined ? { body: JSON.stringify(i.body) } : {}),
  };
}

export interface OperatorClient {
  /** The answer as it came, envelope typed by the row (the CLI prints it as is). */
  send<N extends OperatorRouteName>(
    name: N,
    input: OperatorCallInput<N>,
  ): Promise<{ status: number; envelope: OperatorEnvelope<N> }>;
  /** The envelope's data; an `ok: false` envelope is thrown as an OperatorCallError. */
  call<N extends OperatorRouteName>(
    name: N,
    input: OperatorCallInput<N>,
  ): Promise<OperatorCallOutput<N>>;
  /** Opens a row's event stream (a client made without a stream transport throws). */
  events<N extends OperatorSseName>(name: N, input: OperatorCallInput<N>): OperatorEvents<N>;
}

/** The error of an envelope that is not ok (or not an envelope at all). */
function callError(status: number, envelope: unknown): OperatorCallError {
  const error = (envelope as { error?: { code?: string; message?: string } } | null)?.error;
  return new OperatorCallError(status, error?.code ?? 'internal', error?.message ?? 'failed');
}

export function operatorClient(
  transport: OperatorTransport,
  stream?: OperatorStreamTransport,
): OperatorClient {
  const send: OperatorClient['send'] = async (name, input) => {
    const res = await transport(operatorRequest(name, input));
    return { status: res.status, envelope: res.json as OperatorEnvelope<typeof name> };
  };
  return {
    send,
    async call(name, input) {
      const { status, envelope } = await send(name, input);
      if (envelope?.ok === true) return envelope.data;
      throw callError(status, envelope);
    },
    events(name, input) {
      if (!stream) throw new Error(`${name}: this operator client has no stream transport`);
      const abort = new AbortController();
      const events = readEvents<typeof name>(stream, operatorRequest(name, input), abort);
      return { [Symbol.asyncIterator]: () => events, close: () => abort.abort() };
    },
  };
}

async function* readEvents<N extends OperatorSseName>(
  stream: OperatorStreamTransport,
  req: OperatorRequest,
  abort: AbortController,
): AsyncGenerator<OperatorEvent<N>> {
  try {
    const res = await stream(req, abort.signal);
    if (res.status !== 200) {
      // A refusal is the usual JSON envelope.
      let text = '';
      for await (const chunk of res.chunks) text += chunk;
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON: the status alone speaks
      }
      throw callError(res.status, json);
    }
    for await (const data of sseData(res.chunks)) {
      let frame: { seq?: unknown; type?: unknown; data?: unknown };
      try {
        frame = JSON.parse(data) as typeof frame;
      } catch {
        continue;
      }
      if (frame === null || typeof frame.type !== 'string') continue;
      yield {
        seq: Number(frame.seq),
        type: frame.type,
        data: (frame.data ?? {}) as OperatorEvent<N>['data'],
      };
    }
  } catch (err) {
    // Closed from this side: the iteration just ends.
    if (!abort.signal.aborted) throw err;
  } finally {
    // A reader that stops early (break, return) closes the connection too.
    abort.abort();
  }
}
