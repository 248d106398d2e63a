import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import {
  RETRIEVAL_LIMITS,
  type MemorySearchInput,
  type MemorySearchOutput,
} from '../../catalog/mcp-knowledge-tools.js';
import type { Clock } from '../../lib/clock.js';
import { homePaths } from '../../lib/home.js';
import { ExecError } from '../errors/exec-error.js';
import { FolderIndex } from './folder-index.js';
import type { IndexMasking } from './index-rows.js';
import type { ResultGate } from '../results/gate.js';

/** What search needs of the result gate. */
export type SearchMasking = IndexMasking & Pick<ResultGate, 'labels' | 'maskText'>;
import { searchPage } from './text-search.js';

/** Open agent indexes (each holds a watcher and a database handle); the least recently used closes first. */
const MAX_OPEN = 64;
/** How long a search waits for a first build before answering index_unavailable. */
const BUILD_WAIT_MS = 1_500;

interface MemoryOptions {
  readonly home: string;
  readonly clock: Clock;
  /** The result gate: notes are masked before they are indexed, snippets marked on masked text. */
  readonly gate: SearchMasking;
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
  readonly buildWaitMs?: number;
}

/** An agent's memory folder; the runtime guidance names the same path. */
export function memoryFolder(home: string, agentId: string): string {
  return join(homePaths(home).memory, agentId);
}

/**
 * The memory indexes of the agents that searched: one FolderIndex per agent
 * over $AGENTTEAM_HOME/memory/<agentId>/, in its own database under
 * $AGENTTEAM_HOME/index/memory/ (store.db stays the product store).
 */
export class MemoryIndexes {
  /** Open indexes by agent id, with the inode of the folder each one watches. */
  private readonly open = new Map<string, { index: FolderIndex; ino: number }>();

  constructor(private readonly opts: MemoryOptions) {}

  private indexFor(agentId: string): FolderIndex {
    const folder = memoryFolder(this.opts.home, agentId);
    if (agentId === '.' || agentId === '..')
      throw unavailable('this agent id cannot name a memory folder', 'Use a normal agent id.');
    let ino: number | null = null;
    try {
      const st = lstatSync(folder);
      if (st.isDirectory()) ino = st.ino;
    } catch {
      ino = null;
    }
    const known = this.open.get(agentId);
    // A failed first build is retried with a fresh index; a folder that was removed or
    // replaced since the index opened (its watchers watch the old one) starts over too.
    // So is an index masked under another set of secret values (a reload added one).
    if (known && (known.index.failed || known.index.stale || known.ino !== ino)) {
      known.index.destroy();
      this.open.delete(agentId);
    } else if (known) {
      this.open.delete(agentId);
      this.open.set(agentId, known);
      return known.index;
    }
    if (ino === null) {
      throw unavailable(
        'you have no memory folder yet, so there is no index to search',
        `Create Markdown notes in ${folder}/ (see the memory-maintenance guidance); they are searchable moments later.`,
      );
    }
    if (this.open.size >= MAX_OPEN) {
      const [oldest, entry] = this.open.entries().next().value as [string, { index: FolderIndex }];
      entry.index.close();
      this.open.delete(oldest);
    }
    const index = new FolderIndex({
      root: folder,
      dbPath: join(
        this.opts.home,
        'index',
        'memory',
        `${encodeURIComponent(agentId).replace(/\./g, '%2E')}.db`,
      ),
      clock: this.opts.clock,
      gate: this.opts.gate,
      ...(this.opts.diag ? { diag: this.opts.diag } : {}),
    });
    this.open.set(agentId, { index, ino });
    return index;
  }

  async search(agentId: string, input: MemorySearchInput): Promise<MemorySearchOutput> {
    const index = this.indexFor(agentId);
    const folder = memoryFolder(this.opts.home, agentId);
    if (!(await index.whenReady(this.opts.buildWaitMs ?? BUILD_WAIT_MS))) {
      if (index.failed) {
        throw unavailable(
          'building your memory index failed',
          `Retry memory_search later (it starts a new build); meanwhile search the files directly, e.g. grep -rn "<word>" ${folder}/`,
        );
      }
      const { done, total } = index.progress;
      throw unavailable(
        `your memory index is being built (${total > 0 ? `${done} of ${total} files so far` : 'listing the files'})`,
        `Retry memory_search in a few seconds; meanwhile search the files directly, e.g. grep -rn "<word>" ${folder}/`,
      );
    }
    await index.refresh();
    // Another agent's search may have closed this index (the least recently used goes) while it refreshed.
    if (index.state === 'closed')
      throw unavailable(
        'your memory index was closed while this search waited',
        'Retry memory_search.',
      );
    const page = searchPage(index.db, {
      scope: `memory\u0000${agentId}`,
      cursorPrefix: 'ms1',
      query: input.query,
      limit: input.limit ?? RETRIEVAL_LIMITS.defaultHits,
      cursor: input.cursor,
      snippetBytes: RETRIEVAL_LIMITS.snippetBytes,
      gate: this.opts.gate,
    });
    const out: MemorySearchOutput = {
      hits: page.hits.map((h) => ({
        path: h.path,
        lineStart: h.lineStart,
        lineEnd: h.lineEnd,
        line: h.line,
        snippet: h.snippet,
        score: h.score,
      })),
      hasMore: page.hasMore,
    };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  }

  close(): void {
    for (const { index } of this.open.values()) index.close();
    this.open.clear();
  }
}

function unavailable(message: string, hint: string): ExecError {
  return new ExecError('index_unavailable', message, {
    hint,
    next: { action: 'memory_search', input: { query: '<query>' } },
  });
}
