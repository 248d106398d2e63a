import type { AuditEntry, AuditSummary, AuditSummaryRow } from '../../catalog/audit.js';
import { SINCE_PATTERN } from '../../catalog/audit.js';
import { resolveHome } from '../../lib/home.js';
import { daemonOperator, readDaemonInfo } from '../daemon-client.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';

/** How often --follow asks for new rows (the daemon writes them in batches every 200 ms). */
const FOLLOW_POLL_MS = 1_000;

const say = (m: string) => process.stderr.write(`agentteam audit: ${visible(m)}\n`);

type Reply = { ok: true; data: unknown } | { ok: false; code: number };

/** One read; a failure has printed its envelope (the daemon's, or the refusal's) and carries the exit status. */
async function get(
  home: string,
  name: 'audit.list' | 'audit.summary',
  q: URLSearchParams,
): Promise<Reply> {
  if (!readDaemonInfo(home)) return { ok: false, code: noDaemon('audit', home) };
  let res: { status: number; json: unknown };
  try {
    // The query is built from the command's options; the daemon's row checks it.
    const query = Object.fromEntries(q) as Record<string, string>;
    const { status, envelope } = await daemonOperator(home).send(name, { query });
    res = { status, json: envelope };
  } catch (err) {
    return {
      ok: false,
      code: refuse(
        'audit',
        'unavailable',
        `cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}`,
      ),
    };
  }
  const json = res.json as {
    ok?: boolean;
    data?: unknown;
    error?: { message?: string; details?: { path: string; message: string }[] };
  } | null;
  if (json?.ok === true) return { ok: true, data: json.data };
  process.stdout.write(`${jsonText(json)}\n`);
  const detail = json?.error?.details?.[0];
  say(
    detail
      ? `${detail.path.slice(1)}: ${detail.message}`
      : (json?.error?.message ?? `the daemon answered ${res.status}`),
  );
  return { ok: false, code: 1 };
}

/**
 * One call on one line. Tool names, thread ids and payloads are chosen by
 * agents: shown through visible(), so a newline or an escape sequence in
 * them cannot start a forged row or drive the terminal.
 */
function line(e: AuditEntry): string {
  const thread = e.threadId ? ` thread=${visible(e.threadId)}` : '';
  const trace = e.traceId ? ` trace=${visible(e.traceId)}` : '';
  const turn = e.turnId ? ` turn=${visible(e.turnId)}` : '';
  const base = `${e.at} ${visible(`${e.serverId}/${e.agentId}`)} ${visible(e.tool)} ${visible(e.outcome)} ${e.durationMs.toFixed(1)}ms ${e.via}${e.transport !== e.via ? `/${e.transport}` : ''} in=${e.requestBytes}B out=${e.resultBytes}B${thread}${trace}${turn}`;
  const payload =
    (e.args !== undefined ? `\n  args: ${visible(e.args)}` : '') +
    (e.result !== undefined ? `\n  result: ${visible(e.result)}` : '');
  return base + payload;
}

function table(title: string, rows: AuditSummaryRow[]): string {
  const head = [title, 'calls', 'errors', 'p50 ms', 'p95 ms'];
  const body = rows.map((r) => [
    visible(r.key),
    String(r.calls),
    String(r.errors),
    r.p50Ms.toFixed(1),
    r.p95Ms.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), ...body.map(fmt)].join('\n');
}

/**
 * `agentteam audit [--agent A] [--tool T] [--outcome CODE] [--server S]
 * [--turn ID] [--since 1h] [--limit N] [--cursor C] [--follow] [--json] [--summary]`:
 * the daemon's record of agent calls, newest first one page at a time;
 * --follow prints the newest page oldest first and then every new call as it
 * is written; --summary prints calls, errors and p50/p95 per tool and agent.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const q = new URLSearchParams();
  for (const k of ['agent', 'tool', 'outcome', 'server', 'turn', 'since'] as const)
    if (typeof opts[k] === 'string') q.set(k, opts[k] as string);
  if (typeof opts.since === 'string' && !SINCE_PATTERN.test(opts.since)) {
    return refuse('audit', 'usage', '--since must be a number and a unit: 90s, 15m, 1h, 7d');
  }
  const json = opts.json === true;
  if (opts.summary === true) {
    if (opts.follow || opts.cursor || opts.outcome || opts.turn || opts.limit) {
      return refuse('audit', 'usage', '--summary takes only --agent, --tool, --server and --since');
    }
    const r = await get(home, 'audit.summary', q);
    if (!r.ok) return r.code;
    const s = r.data as AuditSummary;
    process.stdout.write(
      json
        ? `${jsonText({ ok: true, data: s })}\n`
        : `since ${s.since}\n\n${table('tool', s.byTool)}\n\n${table('agent', s.byAgent)}\n`,
    );
    return 0;
  }
  if (opts.limit !== undefined) q.set('limit', String(opts.limit));
  if (typeof opts.cursor === 'string') {
    if (opts.follow) {
      return refuse('audit', 'usage', '--follow starts at the newest page; leave out --cursor');
    }
    q.set('cursor', opts.cursor);
  }
  const first = await get(home, 'audit.list', q);
  if (!first.ok) return first.code;
  const page = first.data as {
    entries: AuditEntry[];
    hasMore: boolean;
    nextCursor?: string;
    lastSeq?: number;
  };
  if (!opts.follow) {
    if (json)
      process.stdout.write(
        `${jsonText({ ok: true, data: { entries: page.entries, hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } })}\n`,
      );
    else {
      for (const e of page.entries) process.stdout.write(`${line(e)}\n`);
      if (page.nextCursor) say(`more: --cursor ${page.nextCursor}`);
    }
    return 0;
  }
  const print = (e: AuditEntry) => process.stdout.write(`${json ? jsonText(e) : line(e)}\n`);
  for (const e of [...page.entries].reverse()) print(e);
  let after = page.lastSeq ?? 0;
  q.delete('limit');
  q.set('limit', '100');
  for (;;) {
    await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
    q.set('after', String(after));
    const r = await get(home, 'audit.list', q);
    if (!r.ok) return r.code;
    const d = r.data as { entries: AuditEntry[]; lastSeq: number };
    for (const e of d.entries) print(e);
    after = d.lastSeq;
  }
}
