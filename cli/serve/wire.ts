import { ERROR_TABLE, type ErrorCode } from '../../catalog/errors.js';
import { STDIO_WIRE } from '../../catalog/stdio-tools.js';

/**
 * The stdio wire of `agentteam serve --stdio`: one JSON-RPC 2.0 frame per
 * line. Input frames are cut at LF and bounded before they are decoded;
 * output frames are serialized, measured (LF included) and queued on a
 * bounded queue.
 */

export type RpcId = string | number;

export function errorFrame(
  id: RpcId | null,
  code: ErrorCode,
  message: string,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ERROR_TABLE[code].jsonrpc, message, data: { code } },
  };
}

/** Cuts a byte stream into lines; a line longer than the input bound is reported once and ends the reader. */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private dead = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: () => void,
    private readonly limit: number = STDIO_WIRE.inputFrameBytes,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.dead) {
      const lf = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, lf < 0 ? chunk.length : lf);
      this.size += piece.length;
      if (this.size > this.limit) {
        this.dead = true;
        this.parts = [];
        this.onOversize();
        return;
      }
      if (lf < 0) {
        if (piece.length > 0) this.parts.push(piece);
        return;
      }
      const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.size = 0;
      start = lf + 1;
      // A CR before the LF belongs to the line terminator.
      const body =
        line.length > 0 && line[line.length - 1] === 0x0d
          ? line.subarray(0, line.length - 1)
          : line;
      if (body.length > 0) this.onLine(body);
    }
  }
}

/**
 * The most output queued for a reader that does not keep up; past it the
 * child gives up on the app. Twice what 16 pending calls at their largest
 * (arguments of 16 KiB each) can queue, so only an app that stopped reading
 * reaches it.
 */
const OUTPUT_QUEUE_BYTES = 512 * 1024;

interface Sink {
  write(chunk: string): boolean;
  readonly writableLength: number;
}

/**
 * Serializes and writes one frame. Returns 'too_large' (nothing written)
 * when the frame with its LF is over the output bound, 'overflow' when the
 * app has left more than OUTPUT_QUEUE_BYTES unread.
 */
export function writeFrame(sink: Sink, frame: unknown): 'ok' | 'too_large' | 'overflow' {
  const line = `${JSON.stringify(frame)}\n`;
  if (Buffer.byteLength(line, 'utf8') > STDIO_WIRE.outputFrameBytes) return 'too_large';
  sink.write(line);
  return sink.writableLength > OUTPUT_QUEUE_BYTES ? 'overflow' : 'ok';
}
