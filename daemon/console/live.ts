import type { Context } from 'hono';
import type { Clock } from '../../lib/clock.js';
import { openSse, SSE_HEADERS } from '../http/sse.js';

/** How often a live page body is re-rendered; a change is on the page within this plus one round trip. */
const LIVE_POLL_MS = 300;
const HEARTBEAT_MS = 15_000;
/** At most this many live pages per daemon at once; one more gets 503. */
const MAX_LIVE = 16;

/** The count of open live streams of one daemon. */
interface LiveCount { open: number }

/** One SSE frame carrying an HTML fragment (every line of it a data: line). */
function fragmentFrame(html: string): string {
  return `event: fragment\n${html.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join('\n')}\n\n`;
}

/**
 * A page body kept live: rendered every LIVE_POLL_MS from the same operator
 * routes the page itself reads, and sent as an `event: fragment` whenever the
 * HTML differs from the last one sent. The stream ends when the browser
 * leaves, the session ends (checked each round) or the daemon stops.
 */
export function liveBody(c: Context, clock: Clock, count: LiveCount, render: () => Promise<string>, stillSignedIn: () => boolean): Response {
  if (count.open >= MAX_LIVE) return c.text('too many live console pages', 503);
  count.open++;
  let last = '';
  let timer: ReturnType<Clock['setTimeout']> | null = null;
  const { body, sink } = openSse({
    clock, heartbeatMs: HEARTBEAT_MS, heartbeat: () => ': keep-alive\n\n',
    onClose: () => {
      count.open--;
      if (timer) clock.clearTimeout(timer);
    },
  });
  const round = async () => {
    timer = null;
    if (sink.closed) return;
    if (!stillSignedIn()) return sink.close();
    try {
      const html = await render();
      if (html !== last && sink.write(fragmentFrame(html))) last = html;
    } catch {
      // a failed read (daemon stopping) is retried next round
    }
    if (!sink.closed) timer = clock.setTimeout(() => void round(), LIVE_POLL_MS);
  };
  c.req.raw.signal.addEventListener('abort', () => sink.close(), { once: true });
  sink.write('retry: 2000\n\n');
  void round();
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
