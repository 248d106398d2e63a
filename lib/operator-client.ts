import type {
  OperatorInputOf,
  OperatorMethod,
  OperatorOutputOf,
} from '../catalog/operator/route.js';
import type { OperatorRouteName, OperatorRouteOf } from '../catalog/operator/table.js';
import { OPERATOR_PATHS } from './operator-paths.js';

/**
 * The one typed client of the operator API (`/api/v1`), for the CLI, the
 * console and the test harness. A call names a row of catalog/operator/ and
 * gives its input; the answer's type is the row's output schema. Types come
 * from the table by `import type`; at run time this module loads only the
 * generated method/path index (lib/operator-paths.ts): no schema, no ajv.
 * How bytes travel is the caller's transport: node:http in the CLI, the
 * app's own fetch in the console, fetch in the tests.
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
}

export function operatorClient(transport: OperatorTransport): OperatorClient {
  const send: OperatorClient['send'] = async (name, input) => {
    const res = await transport(operatorRequest(name, input));
    return { status: res.status, envelope: res.json as OperatorEnvelope<typeof name> };
  };
  return {
    send,
    async call(name, input) {
      const { status, envelope } = await send(name, input);
      if (envelope?.ok === true) return envelope.data;
      const error = (envelope as { error?: { code?: string; message?: string } } | null)?.error;
      throw new OperatorCallError(status, error?.code ?? 'internal', error?.message ?? 'failed');
    },
  };
}
