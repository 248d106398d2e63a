import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The methods the operator API uses. */
export type OperatorMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call a row. Every `/api/v1` route takes the operator token as a
 * Bearer credential (or arrives on the owner-only unix socket, which stands
 * for it); the console reaches the same rows in process with that token after
 * checking its own session cookie, so a console session is the operator
 * token at one remove. `pairing-code` is the one row an app calls before it
 * holds any credential: the body's one-time code is the credential. Which
 * rows a paired device's token may call is a separate allow list
 * (device-scope.ts).
 */
type OperatorPermission = 'operator' | 'pairing-code';

/** The error code a request that fails its row's schemas is refused with (kept per route as it always was). */
type OperatorRefusal = 'validation_failed' | 'invalid_request' | 'invalid_tool';

/**
 * One row of the operator API: method and path (`:name` parameters), who may
 * call it, the schemas of its input (path parameters, query string, JSON
 * body) and of its answer (the `data` of the `{ok: true, data}` envelope), or,
 * for a stream, the stream's kind and the schema of each event. Data only: the
 * daemon's dispatcher (daemon/operator/dispatch.ts) validates with the
 * validators the build generates from these schemas, the typed client
 * (lib/operator-client.ts) derives its types from them, and the build writes
 * specs/operator-openapi.json from them.
 */
export interface OperatorRoute {
  /** `<concept>.<verb>`: the key handlers are registered under. */
  readonly name: string;
  readonly method: OperatorMethod;
  readonly path: `/api/v1/${string}` | '/api/v1';
  readonly summary: string;
  readonly permission: OperatorPermission;
  readonly params?: JSONSchema;
  /** Query values arrive as strings, so query schemas constrain strings. */
  readonly query?: JSONSchema;
  readonly body?: JSONSchema;
  /** A body larger than the usual operator limit (bytes), for rows that carry results. */
  readonly bodyLimit?: number;
  /**
   * Set when the body is checked by the named decoder in the handler instead
   * of the generated validator: the client-tool relays refuse with their own
   * closed vocabulary (unknown_client, invalid_tool, ...), which a schema
   * failure cannot say. The body schema still documents and types the body.
   */
  readonly decoder?: string;
  /** Refusal code when the input does not match (default validation_failed). */
  readonly invalid?: OperatorRefusal;
  /** Success status (default 200). */
  readonly status?: 200 | 201 | 202;
  /** The envelope's data; for a stream, the first line's data (NDJSON) or nothing (SSE). */
  readonly output: JSONSchema;
  readonly stream?: {
    readonly kind: 'ndjson' | 'sse';
    /** Each line (NDJSON) or each event's data (SSE) after the first. */
    readonly event: JSONSchema;
    /** NDJSON without the envelope line: every line, the first included, is an event (`output` says so). */
    readonly envelope?: false;
  };
}

/** Declares a row; `const` keeps the literal schemas so the types below can be derived from them. */
export function operatorRoute<const R extends OperatorRoute>(r: R): R {
  return r;
}

/** A part of the input as a caller gives it: a field with a default may be left out. */
type SchemaOf<R, K extends 'params' | 'query' | 'body'> = R extends {
  readonly [P in K]: infer S extends JSONSchema;
}
  ? FromSchema<S, { keepDefaultedPropertiesOptional: true }>
  : undefined;

export type QueryOf<R extends OperatorRoute> = SchemaOf<R, 'query'>;
export type BodyOf<R extends OperatorRoute> = SchemaOf<R, 'body'>;
/** What a handler receives: the row's parts, each present only if the row has it. */
export type OperatorInputOf<R extends OperatorRoute> = {
  readonly [K in 'params' | 'query' | 'body' as R extends { readonly [P in K]: JSONSchema }
    ? K
    : never]: SchemaOf<R, K>;
};
export type OperatorOutputOf<R extends OperatorRoute> = FromSchema<R['output']>;
/** The data of one event of a streaming row (each NDJSON line after the first, each SSE event). */
export type OperatorEventOf<R extends OperatorRoute> = R extends {
  readonly stream: { readonly event: infer S extends JSONSchema };
}
  ? FromSchema<S>
  : never;
