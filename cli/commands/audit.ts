import type { AuditEntry, AuditSummary, AuditSummaryRow } from '../../catalog/audit.js';
import { SINCE_PATTERN } from '../../catalog/audit.js';
import { resolveHome } from '../../lib/home.js';
import { operatorRequest, readDaemonInfo } from '../daemon-client.js';

/** How often --follow asks for new rows (the daemon writes them in batches every 200 ms). */
const FOLLOW_POLL_MS = 1_000;

const say = (m: string) => process.stderr.write(`agentteam audit: ${m}\n`);

type Reply = { ok: true; data: any } | { ok: false; code: number };

async function get(home: string, path: string): Promise<Reply> {
  if (!readDaemonInfo(home)) {
    say(`no daemon is running for ${home} (start one with \`agentteam daemon start\`)`);
    return { ok: false, code: 3 };
  }
  let res;
  try {
    res = await operatorRequest(home, 'GET', path);
  } catch (err) {
    say(`cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, code: 3 };
  }
  const json = res.json as { ok?: boolean; data?: unknown; error?: { message?: string; details?: { path: string; message: string }[] } } | null;
  if (json?.ok === true) return { ok: true, data: json.data };
  const detail = json?.error?.details?.[0];
  say(detail ? `${detail.path.slice(1)}: ${detail.message}` : (json?.error?.message ?? `the daemon answered ${res.status}`));
  return { ok: false, code: 1 };
}

function line(e: AuditEntry): string {
  const thread = e.threadId ? ` thread=${e.threadId}` : '';
  const trace = e.traceId ? ` trace=${e.traceId}` : '';
  const base = `${e.at} ${e.serverId}/${e.agentId} ${e.tool} ${e.outcome} ${e.durationMs.toFixed(1)}ms ${e.via}${e.transport !== e.via ? `/${e.transport}` : ''} in=${e.requestBytes}B out=${e.resultBytes}B${thread}${trace}`;
  const payload = (e.args !== undefined ? `\n  args: ${e.args}` : '') + (e.result !== undefined ? `\n  result: ${e.result}` : '');
  return base + payload;
}

function table(title: string, rows: AuditSummaryRow[]): string {
  const head = [title, 'calls', 'errors', 'p50 ms', 'p95 ms'];
  const body = rows.map((r) => [r.key, String(r.calls), String(r.errors), r.p50Ms.toFixed(1), r.p95Ms.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), ...body.map(fmt)].join('\n');
}

/**
 * `agentteam audit [--agent A] [--tool T] [--outcome CODE] [--server S]
 * [--since 1h] [--limit N] [--cursor C] [--follow] [--json] [--summary]`:
 * the daemon's record of agent calls, newest first one page at a time;
 * --follow prints the newest page oldest first and then every new call as it
 * is written; --summary prints calls, errors and p50/p95 per tool and agent.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const q = new URLSearchParams();
  for (const k of ['agent', 'tool', 'outcome', 'server', 'since'] as const) if (typeof opts[k] === 'string') q.set(k, opts[k] as string);
  if (typeof opts.since === 'string' && !SINCE_PATTERN.test(opts.since)) {
    say('--since must be a number and a unit: 90s, 15m, 1h, 7d');
    return 2;
  }
  const json = opts.json === true;
  if (opts.summary === true) {
    if (opts.follow || opts.cursor || opts.outcome || opts.limit) {
      say('--summary takes only --agent, --tool, --server and --since');
      return 2;
    }
    const r = await get(home, `/api/v1/audit/summary?${q}`);
    if (!r.ok) return r.code;
    const s = r.data as AuditSummary;
    process.stdout.write(json ? `${JSON.stringify(s)}\n` : `since ${s.since}\n\n${table('tool', s.byTool)}\n\n${table('agent', s.byAgent)}\n`);
    return 0;
  }
  if (opts.limit !== undefined) q.set('limit', String(opts.limit));
  if (typeof opts.cursor === 'string') {
    if (opts.follow) {
      say('--follow starts at the newest page; leave out --cursor');
      return 2;
    }
    q.set('cursor', opts.cursor);
  }
  const first = await get(home, `/api/v1/audit?${q}`);
  if (!first.ok) return first.code;
  const page = first.data as { entries: AuditEntry[]; hasMore: boolean; nextCursor?: string; lastSeq?: number };
  if (!opts.follow) {
    if (json) process.stdout.write(`${JSON.stringify({ entries: page.entries, hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) })}\n`);
    else {
      for (const e of page.entries) process.stdout.write(`${line(e)}\n`);
      if (page.nextCursor) say(`more: --cursor ${page.nextCursor}`);
    }
    return 0;
  }
  const print = (e: AuditEntry) => process.stdout.write(`${json ? JSON.stringify(e) : line(e)}\n`);
  for (const e of [...page.entries].reverse()) print(e);
  let after = page.lastSeq ?? 0;
  q.delete('limit');
  q.set('limit', '100');
  for (;;) {
    await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
    q.set('after', String(after));
    const r = await get(home, `/api/v1/audit?${q}`);
    if (!r.ok) return r.code;
    const d = r.data as { entries: AuditEntry[]; lastSeq: number };
    for (const e of d.entries) print(e);
    after = d.lastSeq;
  }
}
