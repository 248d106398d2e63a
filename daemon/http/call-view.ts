import type { IncomingMessage } from 'node:http';
import type { RuntimeRequest } from '../auth/principal.js';
import { EXEC_ACTION_PATH } from './paths.js';

/**
 * What the code of one runtime call reads of its request: the authorization
 * it was admitted under, the path's parameters, a header, the path, and the
 * Node request behind it. hono's Context satisfies it (every route), and so
 * does `NodeCall` (the Exec lane, exec/lane.ts), which answers the commonest
 * call without hono's Request, Context and Response. One body of code then
 * serves both, so the lane cannot drift from the route.
 */
export interface CallView {
  get(key: 'runtime'): RuntimeRequest;
  readonly req: {
    param(name: string): string | undefined;
    /** The header's value, repeated fields joined with ", " as the Fetch API joins them. */
    header(name: string): string | undefined;
    readonly path: string;
  };
  /** `{ incoming }` on @hono/node-server and in the lane; absent for a web Request (tests, in-process calls). */
  readonly env: unknown;
  /** When the request was read (performance.now()), where known: the Exec lane's calls (store/server-api.ts, Caller). */
  readonly arrivedAt?: number;
}

/** Where each parameter of the Exec action path is in a match of it: its place in the path, from 1. */
const PARAM_AT: ReadonlyMap<string, number> = new Map(
  [...EXEC_ACTION_PATH.matchAll(/:([A-Za-z]+)/g)].map((m, i) => [m[1]!, i + 1]),
);

/**
 * A CallView over a Node request, for the Exec lane; `match` is the action
 * path (`EXEC_ACTION_PATH`) matched with a group per parameter, in path order (exec/lane.ts).
 * Headers are read the way @hono/node-server reads them for hono (raw
 * fields, case-insensitive, repeats joined, so two Authorization fields are
 * one malformed value, not the first of them), gathered once per request.
 * It is its own `env` (`{ incoming }`): one object per call.
 */
export class NodeCall implements CallView {
  runtime: RuntimeRequest | undefined;
  /** Taken when the request's header has been read: the lane builds the call in Node's request event. */
  readonly arrivedAt = performance.now();
  private headers: Record<string, string> | undefined;

  constructor(
    readonly incoming: IncomingMessage,
    private readonly match: readonly string[],
    readonly path: string,
  ) {}

  get env(): this {
    return this;
  }

  get req(): this {
    return this;
  }

  get(_key: 'runtime'): RuntimeRequest {
    return this.runtime!;
  }

  param(name: string): string | undefined {
    const at = PARAM_AT.get(name);
    return at === undefined ? undefined : this.match[at];
  }

  header(name: string): string | undefined {
    if (this.headers === undefined) this.headers = joinedHeaders(this.incoming.rawHeaders);
    return this.headers[name.toLowerCase()];
  }
}

const isBlank = (ch: number) => ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d;

/** Leading and trailing HTTP whitespace (space, tab, CR, LF) off, nothing else (not String.trim's Unicode set). */
function trimHttpBlanks(v: string): string {
  let start = 0;
  let end = v.length;
  while (start < end && isBlank(v.charCodeAt(start))) start++;
  while (end > start && isBlank(v.charCodeAt(end - 1))) end--;
  return start === 0 && end === v.length ? v : v.slice(start, end);
}

/** Lower-cased names to values, surrounding blanks trimmed, repeats joined with ", " ("; " for cookie). */
function joinedHeaders(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = trimHttpBlanks(raw[i + 1]!);
    const had = out[name];
    out[name] = had === undefined ? value : had + (name === 'cookie' ? '; ' : ', ') + value;
  }
  return out;
}
