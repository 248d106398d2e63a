import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { clipJson } from '../../catalog/limits.js';
import { ExecError } from '../errors/exec-error.js';
import type { IndexDb } from './index-db.js';
import { toMatchExpression } from './fts-query.js';
import { cutOutsideLabel, type Masked } from '../masking/masked.js';
import type { ResultGate } from '../results/gate.js';

interface RawHit {
  readonly path: string;
  readonly title: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  /** The first line of the passage holding a match. */
  readonly line: number;
  readonly snippet: string;
  /** BM25 turned so that higher is better. */
  readonly score: number;
}

interface HitPage {
  readonly hits: RawHit[];
  readonly hasMore: boolean;
  readonly nextCursor?: string;
}

interface CursorBody {
  v: 1;
  /** The last hit's raw bm25 (ascending order) and rowid: the keyset boundary. */
  s: number;
  r: number;
  /** Digest of the scope and the query, so a cursor cannot continue another search. */
  q: string;
}

const OPEN = '\u0001';
const CLOSE = '\u0002';

function digest(scope: string, query: string): string {
  return createHash('sha256')
    .update(scope)
    .update('\u0000')
    .update(query)
    .digest('base64url')
    .slice(0, 12);
}

function encode(prefix: string, body: CursorBody): string {
  return `${prefix}.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
}

function invalid(message: string): ExecError {
  return new ExecError('validation_failed', message, {
    details: [{ path: '/cursor', message }],
    hint: 'Omit cursor for the first page, or pass the nextCursor returned for this same query.',
  });
}

function decode(prefix: string, cursor: string, q: string): CursorBody {
  if (!cursor.startsWith(`${prefix}.`)) throw invalid('cursor is not a cursor of this search');
  let b: Partial<CursorBody> | null;
  try {
    b = JSON.parse(
      Buffer.from(cursor.slice(prefix.length + 1), 'base64url').toString('utf8'),
    ) as Partial<CursorBody>;
  } catch {
    throw invalid('cursor is malformed');
  }
  if (
    b?.v !== 1 ||
    typeof b.s !== 'number' ||
    !Number.isFinite(b.s) ||
    !Number.isSafeInteger(b.r) ||
    typeof b.q !== 'string'
  ) {
    throw invalid('cursor is malformed');
  }
  const body: CursorBody = { v: 1, s: b.s, r: b.r as number, q: b.q };
  if (encode(prefix, body) !== cursor) throw invalid('cursor is malformed');
  if (b.q !== q) throw invalid('cursor was issued for a different query');
  return body;
}

/** Cuts masked text to at most max UTF-8 bytes at a character boundary and outside any `[NAME]`, marking the cut with an ellipsis. */
export function clipBytes(text: Masked, max: number): string {
  // Counted as JSON spells it (escapes included), which is never less than the UTF-8 bytes.
  const clipped = clipJson(text, { chars: max, bytes: max });
  if (clipped === text) return text;
  const kept = clipped.slice(0, -1);
  if (!text.startsWith(kept)) return clipped;
  return `${text.slice(0, cutOutsideLabel(text, kept.length, 'start'))}…`;
}

const TOKEN_RUN = /([\p{L}\p{N}]+)/u;
const wholeNames = new WeakMap<readonly string[], RegExp | null>();

/**
 * One pattern matching each label as it comes out of FTS5's snippet(): the
 * label's words may each be wrapped in the highlight brackets (FTS5 splits
 * `GITHUB_TOKEN` into two words), which would put a marker inside the name.
 */
function namePattern(labels: readonly string[]): RegExp | null {
  let re = wholeNames.get(labels);
  if (re !== undefined) return re;
  const alternatives = labels.map((label) => {
    const parts = label
      .slice(1, -1)
      .split(TOKEN_RUN)
      .filter((p) => p !== '');
    return `\\[${parts.map((p) => (TOKEN_RUN.test(p) ? `\\[?${escapeRe(p)}\\]?` : escapeRe(p))).join('')}\\]`;
  });
  re = alternatives.length === 0 ? null : new RegExp(alternatives.join('|'), 'g');
  wholeNames.set(labels, re);
  return re;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A snippet of masked text whose highlights touch a `[NAME]`: the name is highlighted whole, never split by a marker. */
function highlightWholeNames(snippet: string, labels: readonly string[]): string {
  const re = namePattern(labels);
  if (!re || !snippet.includes('[')) return snippet;
  return snippet.replace(re, (m) => {
    const name = m.replace(/[[\]]/g, '');
    return m.length === name.length + 2 ? m : `[[${name}]]`;
  });
}

const statements = new WeakMap<IndexDb, { page: Statement; next: Statement; detail: Statement }>();

function prepared(db: IndexDb) {
  let s = statements.get(db);
  if (!s) {
    s = {
      page: db.prepare(
        'SELECT rowid AS r, bm25(chunks) AS s FROM chunks WHERE chunks MATCH ? ORDER BY s, r LIMIT ?',
      ),
      // Rowids are bound as BigInt: FTS5 ignores a rowid constraint given as REAL (how a JS number binds).
      next: db.prepare(
        'SELECT r, s FROM (SELECT rowid AS r, bm25(chunks) AS s FROM chunks WHERE chunks MATCH ?) WHERE s > ? OR (s = ? AND r > ?) ORDER BY s, r LIMIT ?',
      ),
      detail: db.prepare(
        `SELECT f.path AS path, f.title AS title, chunks.line_start AS ls, chunks.line_end AS le,
                snippet(chunks, 0, '[', ']', '…', 16) AS snip, highlight(chunks, 0, char(1), char(2)) AS hl
         FROM chunks JOIN files f ON f.id = chunks.file_id WHERE chunks MATCH ? AND chunks.rowid = ?`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

/**
 * One page of passages matching query, best first (BM25, then rowid), with a
 * keyset cursor over (score, rowid) bound to scope + query. Snippets are at
 * most snippetBytes UTF-8 bytes; whole passages never leave this function.
 * The indexed text is masked (daemon/knowledge/folder-index.ts), so the
 * highlight markers and the clip are applied to masked text; the gate's
 * labels keep a marker from landing inside a `[NAME]`.
 */
export function searchPage(
  db: IndexDb,
  opts: {
    scope: string;
    cursorPrefix: string;
    query: string;
    limit: number;
    cursor?: string | undefined;
    snippetBytes: number;
    gate: Pick<ResultGate, 'maskText' | 'labels'>;
  },
): HitPage {
  const match = toMatchExpression(opts.query);
  const q = digest(opts.scope, opts.query);
  const s = prepared(db);
  const rows = (
    opts.cursor === undefined
      ? s.page.all(match, opts.limit + 1)
      : (() => {
          const c = decode(opts.cursorPrefix, opts.cursor, q);
          return s.next.all(match, c.s, c.s, BigInt(c.r), opts.limit + 1);
        })()
  ) as { r: number; s: number }[];
  const hasMore = rows.length > opts.limit;
  const page = hasMore ? rows.slice(0, opts.limit) : rows;
  const hits: RawHit[] = [];
  const labels = page.length > 0 ? opts.gate.labels() : [];
  for (const row of page) {
    const d = s.detail.get(match, BigInt(row.r)) as
      | { path: string; title: string; ls: number; le: number; snip: string; hl: string }
      | undefined;
    if (!d) continue;
    const at = d.hl.indexOf(OPEN);
    const before = at < 0 ? '' : d.hl.slice(0, at);
    const line = d.ls + (before.match(/\n/g)?.length ?? 0);
    // Passages were masked before they were indexed (FolderIndex): the markers go on masked text.
    const marked = highlightWholeNames(
      d.snip.replace(/\s+/g, ' ').replaceAll(OPEN, '').replaceAll(CLOSE, '').trim(),
      labels,
    );
    // Through the gate once more before the clip (a value configured since the passage was indexed is masked too).
    const snippet = clipBytes(opts.gate.maskText(marked), opts.snippetBytes);
    hits.push({
      path: d.path,
      title: d.title,
      lineStart: d.ls,
      lineEnd: d.le,
      line,
      snippet,
      score: Math.round(-row.s * 10_000) / 10_000,
    });
  }
  const last = page[page.length - 1];
  const out: HitPage = { hits, hasMore };
  if (hasMore && last)
    return { ...out, nextCursor: encode(opts.cursorPrefix, { v: 1, s: last.s, r: last.r, q }) };
  return out;
}
