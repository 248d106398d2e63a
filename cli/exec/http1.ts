/**
 * An HTTP/1.1 response reader (RFC 9112) for the CLI's one request. It takes
 * the bytes in whatever pieces TCP delivers them and says when the response
 * is complete: 1xx interim responses are skipped, the body is framed by
 * chunked transfer coding, Content-Length or the connection's close, in that
 * order of precedence, and anything malformed or over a limit is an error
 * with a code in the style of node's own parser (`HPE_*`). It exists because
 * loading node:http costs the CLI several ms of start-up on every call
 * (bench/history.md, CLI start); it is not a general client.
 */

/** The status line and header fields of one response, as node:http allows by default (--max-http-header-size). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** A chunk-size line with its extensions. */
const MAX_CHUNK_LINE_BYTES = 4 * 1024;

export interface Http1Response {
  readonly status: number;
  /** Field names in lower case, values as sent (latin1), in order. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

interface Http1Error extends Error {
  code: string;
}

export function httpError(code: string, message: string): Http1Error {
  const error = new Error(message) as Http1Error;
  error.code = code;
  return error;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.[01] ([1-9][0-9]{2})(?: [\t\x20-\x7e\x80-\xff]*)?$/;
/** An HTTP field name (a token), and what node:http accepts in a field value (no CR, LF or NUL; latin1 only): for requests and responses alike. */
export const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const CHUNK_LINE = /^([0-9A-Fa-f]{1,13})[\t ]*(?:;[\t\x20-\x7e\x80-\xff]*)?$/;
const DIGITS = /^[0-9]{1,15}$/;

type State =
  | { readonly kind: 'head' }
  | { readonly kind: 'length'; remaining: number }
  | { readonly kind: 'chunk-size' }
  | { readonly kind: 'chunk-data'; remaining: number }
  | { readonly kind: 'chunk-end' }
  | { readonly kind: 'trailers'; bytes: number }
  | { readonly kind: 'close' }
  | { readonly kind: 'done' };

/** Parses header lines (without the blank line that ends them). */
function fieldLines(lines: readonly string[]): [string, string][] {
  return lines.map((line) => {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!FIELD_NAME.test(name))
      throw httpError('HPE_INVALID_HEADER_TOKEN', 'the response has a malformed header field');
    const value = line.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, '');
    if (!FIELD_VALUE.test(value))
      throw httpError(
        'HPE_INVALID_HEADER_TOKEN',
        `the response's ${name} header holds a forbidden character`,
      );
    return [name.toLowerCase(), value];
  });
}

/** The values of one field, comma lists split, empty elements dropped. */
function listValues(
  headers: readonly (readonly [string, string])[],
  name: string,
): string[] | undefined {
  const raw = headers.filter(([n]) => n === name).map(([, v]) => v);
  if (raw.length === 0) return undefined;
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export class ResponseReader {
  private pending: Buffer = Buffer.alloc(0);
  private state: State = { kind: 'head' };
  private status = 0;
  private headers: [string, string][] = [];
  private readonly body: Buffer[] = [];
  private response: Http1Response | undefined;

  /** Feeds the next bytes; the response once it is complete. Throws an Http1Error on a malformed response. */
  push(chunk: Buffer): Http1Response | undefined {
    if (this.state.kind === 'done') return this.response;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.step());
    // One request was sent, so nothing may follow its response (node:http's parser refuses the same bytes).
    if (this.response && this.pending.length > 0)
      throw httpError('HPE_INVALID_CONSTANT', 'the server sent bytes after the response');
    return this.response;
  }

  /** The server closed the connection: the response if its framing ends there, else an ECONNRESET error. */
  end(): Http1Response {
    if (this.state.kind === 'close') this.finish();
    if (this.response) return this.response;
    throw httpError(
      'ECONNRESET',
      this.state.kind === 'head' && this.pending.length === 0
        ? 'the connection closed without a response'
        : 'the connection closed before the response was complete',
    );
  }

  /** One parsing step over the pending bytes; false when more bytes are needed (or the response is complete). */
  private step(): boolean {
    const s = this.state;
    switch (s.kind) {
      case 'head':
        return this.readHead();
      case 'length': {
        const take = Math.min(s.remaining, this.pending.length);
        if (take > 0) this.keep(take);
        s.remaining -= take;
        if (s.remaining === 0) this.finish();
        return false;
      }
      case 'close':
        if (this.pending.length > 0) this.keep(this.pending.length);
        return false;
      case 'chunk-size': {
        const line = this.line(
          MAX_CHUNK_LINE_BYTES,
          'HPE_INVALID_CHUNK_SIZE',
          'a chunk-size line is too long',
        );
        if (line === undefined) return false;
        const m = CHUNK_LINE.exec(line);
        if (!m)
          throw httpError('HPE_INVALID_CHUNK_SIZE', 'the response has a malformed chunk size');
        const size = parseInt(m[1]!, 16);
        this.state =
          size === 0 ? { kind: 'trailers', bytes: 0 } : { kind: 'chunk-data', remaining: size };
        return true;
      }
      case 'chunk-data': {
        const take = Math.min(s.remaining, this.pending.length);
        if (take === 0) return false;
        this.keep(take);
        s.remaining -= take;
        if (s.remaining > 0) return false;
        this.state = { kind: 'chunk-end' };
        return true;
      }
      case 'chunk-end': {
        if (this.pending.length < 2) return false;
        if (this.pending[0] !== 0x0d || this.pending[1] !== 0x0a)
          throw httpError('HPE_STRICT', 'a chunk is not followed by CRLF');
        this.pending = this.pending.subarray(2);
        this.state = { kind: 'chunk-size' };
        return true;
      }
      case 'trailers': {
        const line = this.line(
          MAX_HEADER_BYTES - s.bytes,
          'HPE_HEADER_OVERFLOW',
          `the response's trailers are larger than ${MAX_HEADER_BYTES} bytes`,
        );
        if (line === undefined) return false;
        s.bytes += line.length + 2;
        if (line === '') {
          this.finish();
          return false;
        }
        fieldLines([line]); // validated; the CLI reads no trailer
        return true;
      }
      case 'done':
        return false;
    }
  }

  /** One CRLF-terminated line of at most `limit` bytes, consumed; undefined until it is all there. */
  private line(limit: number, code: string, message: string): string | undefined {
    const at = this.pending.indexOf(CRLF);
    if (at < 0) {
      if (this.pending.length > limit + 1) throw httpError(code, message);
      return undefined;
    }
    if (at > limit) throw httpError(code, message);
    const text = this.pending.toString('latin1', 0, at);
    this.pending = this.pending.subarray(at + 2);
    return text;
  }

  private readHead(): boolean {
    const at = this.pending.indexOf(HEAD_END);
    // Not found yet: the head would end at pending.length + 1 at the earliest.
    if (at < 0 ? this.pending.length >= MAX_HEADER_BYTES : at + 4 > MAX_HEADER_BYTES) {
      throw httpError(
        'HPE_HEADER_OVERFLOW',
        `the response's header is larger than ${MAX_HEADER_BYTES} bytes`,
      );
    }
    if (at < 0) return false;
    const lines = this.pending.toString('latin1', 0, at).split('\r\n');
    this.pending = this.pending.subarray(at + 4);
    const m = STATUS_LINE.exec(lines[0] ?? '');
    if (!m) throw httpError('HPE_INVALID_CONSTANT', 'the answer is not an HTTP/1.x response');
    const status = Number(m[1]);
    const headers = fieldLines(lines.slice(1));
    if (status === 101)
      throw httpError(
        'HPE_UNEXPECTED_UPGRADE',
        'the server switched protocols, which the CLI did not ask for',
      );
    // An interim response (100 Continue, 103 Early Hints): the final one follows.
    if (status < 200) return true;
    this.status = status;
    this.headers = headers;
    this.state = this.framing(status, headers);
    if (this.state.kind === 'length' && this.state.remaining === 0) this.finish();
    return this.state.kind !== 'done';
  }

  /** RFC 9112 §6.3: how the body of this response ends. */
  private framing(status: number, headers: readonly (readonly [string, string])[]): State {
    if (status === 204 || status === 304) return { kind: 'length', remaining: 0 };
    const codings = listValues(headers, 'transfer-encoding');
    if (codings !== undefined) {
      const chunkedAt = codings.findIndex((c) => c.toLowerCase() === 'chunked');
      if (chunkedAt >= 0 && chunkedAt !== codings.length - 1)
        throw httpError('HPE_INVALID_TRANSFER_ENCODING', 'chunked is not the last transfer coding');
      // Transfer-Encoding overrides Content-Length; without chunked last the body runs to the close.
      return chunkedAt >= 0 ? { kind: 'chunk-size' } : { kind: 'close' };
    }
    const lengths = listValues(headers, 'content-length');
    if (lengths === undefined) return { kind: 'close' };
    if (lengths.length === 0 || !lengths.every((v) => DIGITS.test(v)))
      throw httpError('HPE_INVALID_CONTENT_LENGTH', 'the response has a malformed Content-Length');
    if (new Set(lengths.map(Number)).size !== 1)
      throw httpError(
        'HPE_UNEXPECTED_CONTENT_LENGTH',
        'the response has conflicting Content-Length values',
      );
    return { kind: 'length', remaining: Number(lengths[0]) };
  }

  private keep(n: number): void {
    this.body.push(this.pending.subarray(0, n));
    this.pending = this.pending.subarray(n);
  }

  private finish(): void {
    this.state = { kind: 'done' };
    this.response = { status: this.status, headers: this.headers, body: Buffer.concat(this.body) };
  }
}
