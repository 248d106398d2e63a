import type { Clock, ClockTimer } from '../../lib/clock.js';

/**
 * One server-sent-events response body: frames are queued on a byte-counted
 * stream; a peer that stops reading is dropped once its backlog passes
 * `maxBacklogBytes` instead of letting the daemon's memory grow. Heartbeats
 * keep proxies from timing the connection out and let both ends notice a
 * dead peer. `onClose` runs exactly once, whoever ends the stream.
 */
interface SseOptions {
  readonly clock: Clock;
  readonly heartbeatMs: number;
  /** The heartbeat frame (an SSE comment, or an event the peer can see). */
  readonly heartbeat: () => string;
  readonly maxBacklogBytes?: number;
  readonly onClose: () => void;
}

export interface SseSink {
  /** Queues one frame; false once the stream is closed. */
  write(frame: string): boolean;
  close(): void;
  readonly closed: boolean;
}

const encoder = new TextEncoder();

export function openSse(opts: SseOptions): { body: ReadableStream<Uint8Array>; sink: SseSink } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let timer: ClockTimer | null = null;
  const limit = opts.maxBacklogBytes ?? 4 * 1024 * 1024;

  const end = (closeStream: boolean) => {
    if (closed) return;
    closed = true;
    if (timer) opts.clock.clearTimeout(timer);
    if (closeStream) {
      try {
        controller.close();
      } catch {
        // already closed or errored
      }
    }
    opts.onClose();
  };

  const sink: SseSink = {
    write(frame) {
      if (closed) return false;
      controller.enqueue(encoder.encode(frame));
      if ((controller.desiredSize ?? 0) < -limit) {
        end(true);
        return false;
      }
      return true;
    },
    close: () => end(true),
    get closed() {
      return closed;
    },
  };

  const beat = () => {
    timer = null;
    if (closed) return;
    if (sink.write(opts.heartbeat())) arm();
  };
  const arm = () => {
    timer = opts.clock.setTimeout(beat, opts.heartbeatMs);
    timer.unref?.();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        arm();
      },
      cancel() {
        end(false);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
  return { body, sink };
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;
