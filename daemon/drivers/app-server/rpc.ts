import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** One JSON-RPC message as `codex app-server` writes it: one JSON object per line, no `jsonrpc` member required. */
interface RpcMessage {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/** JSON-RPC "method not found": what `onRequest` throws for a method it does not handle. */
export class MethodNotFound extends Error {
  readonly code = -32601;
}

/** The longest line accepted from the app server (a thread/start result carries the whole thread). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * A JSON-RPC peer over a child's stdio, the transport of `codex app-server`:
 * our requests get increasing numeric ids and resolve with their result;
 * the server's requests (`item/tool/call`, approvals) go to `onRequest`,
 * whose value or thrown error is the answer (MethodNotFound: -32601, any
 * other error: -32603); notifications go to `onNotify`.
 * A line that is not JSON is reported and skipped.
 */
export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { method: string; resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  private closedWith: Error | null = null;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: {
      onRequest: (method: string, params: unknown) => Promise<unknown>;
      onNotify: (method: string, params: unknown) => void;
      onBadLine: (why: string) => void;
    },
  ) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
    lines.on('close', () => this.close(new Error('the app server closed its output')));
  }

  request<T = unknown>(method: string, params: unknown): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      // The answer is the app server's word for T: callers check what they read of it.
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Fails every pending request; later requests fail at once. */
  close(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private write(msg: RpcMessage): void {
    if (this.closedWith || this.output.destroyed) return;
    this.output.write(`${JSON.stringify(msg)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
      this.handlers.onBadLine(`a line of ${Buffer.byteLength(line)} bytes, over ${MAX_LINE_BYTES}`);
      return;
    }
    let msg: RpcMessage;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {
      this.handlers.onBadLine(`not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (msg === null || typeof msg !== 'object') {
      this.handlers.onBadLine('not a JSON object');
      return;
    }
    if (typeof msg.method === 'string' && msg.id !== undefined) {
      const id = msg.id;
      this.handlers.onRequest(msg.method, msg.params).then(
        (result) => this.write({ id, result }),
        // Always an error object with a numeric code: the app server matches it to its request by id.
        (err: Error) =>
          this.write({
            id,
            error: {
              code: err instanceof MethodNotFound ? err.code : -32603,
              message: String(err.message),
            },
          }),
      );
      return;
    }
    if (typeof msg.method === 'string') {
      this.handlers.onNotify(msg.method, msg.params);
      return;
    }
    if (typeof msg.id === 'number') {
      const p = this.pending.get(msg.id);
      if (!p) {
        this.handlers.onBadLine(`an answer to no pending request (id ${msg.id})`);
        return;
      }
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new RpcError(p.method, msg.error.code, msg.error.message));
      else p.resolve(msg.result);
      return;
    }
    this.handlers.onBadLine(`neither request, notification nor answer: ${line.slice(0, 200)}`);
  }
}
