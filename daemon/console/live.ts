import type { Context } from 'hono';
import type { Clock } from '../../lib/clock.js';
import { openSse, SSE_HEADERS, type SseSink } from '../http/sse.js';

/** How often a live page body is re-rendered; a change is on the page within this plus one round trip. */
const LIVE_POLL_MS = 300;
const HEARTBEAT_MS = 15_000;
/** At most this many live pages per daemon at once; one more gets 503. */
const MAX_LIVE = 16;

/** One open tab of a live page: its stream, and the HTML it was last sent. */
interface Tab {
  readonly sink: SseSink;
  readonly stillSignedIn: () => boolean;
  last: string;
}

/** The tabs showing one page body (same page, query and session): rendered once a round for all of them. */
interface Channel {
  readonly tabs: Set<Tab>;
  readonly render: () => Promise<string>;
  timer: ReturnType<Clock['setTimeout']> | null;
  /** The last body rendered, for a tab that joins between rounds. */
  html: string | null;
}

/** One SSE frame carrying an HTML fragment (every line of it a data: line). */
function fragmentFrame(html: string): string {
  return `event: fragment\n${html
    .split(/\r\n|\r|\n/)
    .map((l) => `data: ${l}`)
    .join('\n')}\n\n`;
}

/**
 * The live page bodies of one daemon. Tabs that show the same body (page,
 * query and session: a body may hold the session's CSRF token) share one
 * channel: one render every LIVE_POLL_MS serves them all, and each tab gets
 * an `event: fragment` only when the HTML differs from what it was last
 * sent. A render reads the same operator routes the page itself reads; the
 * costly ones (the audit summary) answer from their shared result until the
 * trail changes, so a round with nothing new costs a status read and a
 * render. A channel stops when its last tab goes; a tab ends when the
 * browser leaves, its session ends (checked each round) or the daemon stops.
 */
export class LivePages {
  private readonly channels = new Map<string, Channel>();
  private open = 0;

  constructor(private readonly clock: Clock) {}

  body(
    c: Context,
    key: string,
    render: () => Promise<string>,
    stillSignedIn: () => boolean,
  ): Response {
    if (this.open >= MAX_LIVE) return c.text('too many live console pages', 503);
    this.open++;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = { tabs: new Set(), render, timer: null, html: null };
      this.channels.set(key, channel);
    }
    const ch = channel;
    let tab: Tab | null = null;
    const { body, sink } = openSse({
      clock: this.clock,
      heartbeatMs: HEARTBEAT_MS,
      heartbeat: () => ': keep-alive\n\n',
      onClose: () => {
        this.open--;
        if (tab) ch.tabs.delete(tab);
        if (ch.tabs.size === 0) this.stop(key, ch);
      },
    });
    tab = { sink, stillSignedIn, last: '' };
    ch.tabs.add(tab);
    c.req.raw.signal.addEventListener('abort', () => sink.close(), { once: true });
    sink.write('retry: 2000\n\n');
    if (ch.html !== null && sink.write(fragmentFrame(ch.html))) tab.last = ch.html;
    if (ch.tabs.size === 1) void this.round(key, ch);
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  private async round(key: string, ch: Channel): Promise<void> {
    ch.timer = null;
    for (const tab of ch.tabs) if (!tab.stillSignedIn()) tab.sink.close();
    if (ch.tabs.size === 0) return;
    try {
      const html = await ch.render();
      ch.html = html;
      for (const tab of ch.tabs)
        if (html !== tab.last && tab.sink.write(fragmentFrame(html))) tab.last = html;
    } catch {
      // a failed read (daemon stopping) is retried next round
    }
    if (ch.tabs.size > 0 && this.channels.get(key) === ch)
      ch.timer = this.clock.setTimeout(() => void this.round(key, ch), LIVE_POLL_MS);
  }

  private stop(key: string, ch: Channel): void {
    if (ch.timer) this.clock.clearTimeout(ch.timer);
    ch.timer = null;
    if (this.channels.get(key) === ch) this.channels.delete(key);
  }
}
