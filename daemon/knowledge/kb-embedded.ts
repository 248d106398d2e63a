import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  RETRIEVAL_LIMITS,
  type KbFetchInput,
  type KbFetchOutput,
  type KbSearchInput,
  type KbSearchOutput,
} from '../../catalog/mcp-knowledge-tools.js';
import { jsonBytes } from '../../catalog/limits.js';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import { titleOf } from './chunk.js';
import { FolderIndex } from './folder-index.js';
import { searchPage } from './text-search.js';
import { isIndexedName, isSafeDir, readSafe } from './walk.js';
import { cutOutsideLabel } from '../masking/masked.js';
import type { ResultGate } from '../results/gate.js';
import type { SearchMasking } from './memory.js';

/** What the embedded knowledge base needs of the result gate. */
export type KbMasking = SearchMasking & Pick<ResultGate, 'document'>;

const BUILD_WAIT_MS = 1_500;

/**
 * The embedded knowledge source: the documents in $AGENTTEAM_HOME/kb/
 * (Markdown and text), indexed in passages with FTS5 and ranked by BM25, in
 * its own database $AGENTTEAM_HOME/index/kb.db. A document's docId is its
 * path relative to the folder.
 */
export class EmbeddedKnowledge {
  private index: FolderIndex | null = null;
  readonly root: string;

  constructor(
    private readonly opts: {
      home: string;
      clock: Clock;
      gate: KbMasking;
      diag?: (e: string, d: Record<string, unknown>) => void;
    },
  ) {
    this.root = join(opts.home, 'kb');
  }

  private open(): FolderIndex {
    // An index masked under another set of secret values (a reload added one) is rebuilt.
    if (this.index?.stale || this.index?.failed) {
      this.index.destroy();
      this.index = null;
    }
    if (this.index) return this.index;
    this.index = new FolderIndex({
      root: this.root,
      dbPath: join(this.opts.home, 'index', 'kb.db'),
      clock: this.opts.clock,
      gate: this.opts.gate,
      ...(this.opts.diag ? { diag: this.opts.diag } : {}),
    });
    return this.index;
  }

  async search(input: KbSearchInput): Promise<KbSearchOutput> {
    if (!isSafeDir(this.opts.home, 'kb')) throw noKnowledge();
    const index = this.open();
    if (!(await index.whenReady(BUILD_WAIT_MS))) {
      throw new ExecError(
        'index_unavailable',
        `the knowledge index is being built (${index.progress.total > 0 ? `${index.progress.done} of ${index.progress.total} documents so far` : 'listing the documents'})`,
        {
          hint: 'Retry kb_search in a few seconds; if you already have a docId, kb_fetch reads it now.',
          next: { action: 'kb_search', input: { query: '<query>' } },
        },
      );
    }
    await index.refresh();
    if (index.state === 'closed')
      throw new ExecError(
        'index_unavailable',
        'the knowledge index closed while this search waited',
        { hint: 'Retry kb_search.' },
      );
    // The daemon makes an empty kb/ at start: no documents at all is still "no knowledge base", not "no hits".
    if (input.cursor === undefined && !index.db.prepare('SELECT 1 FROM files LIMIT 1').get())
      throw noKnowledge();
    const page = searchPage(index.db, {
      scope: 'kb',
      cursorPrefix: 'ks1',
      query: input.query,
      limit: input.limit ?? RETRIEVAL_LIMITS.defaultHits,
      cursor: input.cursor,
      snippetBytes: RETRIEVAL_LIMITS.snippetBytes,
      gate: this.opts.gate,
    });
    const out: KbSearchOutput = {
      hits: page.hits.map((h) => ({
        docId: h.path,
        title: h.title,
        snippet: h.snippet,
        score: h.score,
        lineStart: h.lineStart,
        lineEnd: h.lineEnd,
      })),
      hasMore: page.hasMore,
    };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  }

  /**
   * One page of a document. The whole document is masked first and paged as
   * masked text (offsets, version and line numbers are the masked text's;
   * masking keeps line breaks), so a page boundary can never split a secret
   * and a page never ends inside a `[NAME]`.
   */
  async fetch(input: KbFetchInput): Promise<KbFetchOutput> {
    const raw = isIndexedName(input.docId) ? await readSafe(this.root, input.docId) : null;
    if (raw === null) {
      throw new ExecError('not_found', `no knowledge document ${input.docId}`, {
        hint: 'Use a docId exactly as kb_search returned it.',
      });
    }
    const text = this.opts.gate.document(raw);
    const version = createHash('sha256')
      .update(input.docId)
      .update('\u0000')
      .update(text)
      .digest('base64url')
      .slice(0, 12);
    const from =
      input.cursor === undefined ? { o: 0, l: 1 } : decodeFetchCursor(input.cursor, version);
    const bytes = Buffer.from(text);
    if (from.o > bytes.length) throw fetchCursorError('cursor is past the end of the document');
    let end = Math.min(bytes.length, from.o + RETRIEVAL_LIMITS.fetchBytes);
    // The bound is on the chunk as JSON spells it (control characters cost up to 6 bytes each).
    for (;;) {
      const cost = jsonBytes(bytes.subarray(from.o, end).toString('utf8'));
      if (cost <= RETRIEVAL_LIMITS.fetchBytes) break;
      end = from.o + Math.max(1, Math.floor(((end - from.o) * RETRIEVAL_LIMITS.fetchBytes) / cost));
      while (end > from.o + 1 && (bytes[end]! & 0xc0) === 0x80) end--;
    }
    if (end < bytes.length) {
      const nl = bytes.lastIndexOf(0x0a, end - 1);
      if (nl >= from.o) end = nl + 1;
      else {
        while (end > from.o && (bytes[end]! & 0xc0) === 0x80) end--;
        // A line longer than a page is cut inside it: never inside a [NAME].
        const at = bytes.subarray(0, end).toString('utf8').length;
        const safe = cutOutsideLabel(text, at, 'start');
        if (safe < at && Buffer.byteLength(text.slice(0, safe), 'utf8') > from.o)
          end = Buffer.byteLength(text.slice(0, safe), 'utf8');
      }
    }
    const chunk = bytes.subarray(from.o, end).toString('utf8');
    const newlines = chunk.match(/\n/g)?.length ?? 0;
    const lineEnd = from.l + Math.max(0, chunk.endsWith('\n') ? newlines - 1 : newlines);
    const out: KbFetchOutput = {
      docId: input.docId,
      title: titleOf(text, input.docId),
      text: chunk,
      lineStart: from.l,
      lineEnd,
      hasMore: end < bytes.length,
    };
    if (end < bytes.length)
      out.nextCursor = encodeFetchCursor({ o: end, l: from.l + newlines }, version);
    return out;
  }

  close(): void {
    this.index?.close();
    this.index = null;
  }
}

interface FetchCursor {
  o: number;
  l: number;
}

function encodeFetchCursor(c: FetchCursor, version: string): string {
  return `kf1.${Buffer.from(JSON.stringify({ o: c.o, l: c.l, d: version })).toString('base64url')}`;
}

function fetchCursorError(message: string): ExecError {
  return new ExecError('validation_failed', message, {
    details: [{ path: '/cursor', message }],
    hint: 'Fetch the document again without cursor; it may have changed since the cursor was issued.',
  });
}

function decodeFetchCursor(cursor: string, version: string): FetchCursor {
  if (!cursor.startsWith('kf1.')) throw fetchCursorError('cursor is not a kb_fetch cursor');
  let b: { o?: unknown; l?: unknown; d?: unknown };
  try {
    b = JSON.parse(Buffer.from(cursor.slice(4), 'base64url').toString('utf8')) as typeof b;
  } catch {
    throw fetchCursorError('cursor is malformed');
  }
  if (
    !Number.isSafeInteger(b.o) ||
    (b.o as number) < 0 ||
    !Number.isSafeInteger(b.l) ||
    (b.l as number) < 1 ||
    typeof b.d !== 'string'
  ) {
    throw fetchCursorError('cursor is malformed');
  }
  const c = { o: b.o as number, l: b.l as number };
  if (b.d !== version)
    throw fetchCursorError('cursor was issued for another document or an earlier version of it');
  if (encodeFetchCursor(c, version) !== cursor) throw fetchCursorError('cursor is malformed');
  return c;
}

function noKnowledge(): ExecError {
  return new ExecError(
    'index_unavailable',
    'no knowledge base is set up here (no documents in the kb folder and no upstream)',
    {
      hint: 'Answer from the conversation and memory_search; an operator adds documents to $AGENTTEAM_HOME/kb/ or configures an upstream in kb.json.',
    },
  );
}
