import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Clock, ClockTimer } from '../../lib/clock.js';
import { MAX_DECLARATIONS } from '../../lib/tool-files.js';

/** Quiet time after the last event before the declarations are read again (an editor's save is several events). */
export const SETTLE_MS = 250;
/** When the kernel will not watch (inotify limits), the folder is looked at this often instead. */
export const POLL_MS = 1_000;

/**
 * Watches `$AGENTTEAM_HOME/tools/` so a new, changed or removed declaration
 * takes effect without `daemon reload`. Two non-recursive watches: the tools
 * folder itself (which may come and go) and its parent, the home, for the
 * folder's own creation or removal. Events are only a hint: after they settle,
 * a signature of the folder (each *.json file's name, size, mtime and inode)
 * is compared with the last one, and `onChange` runs only when it differs,
 * so a touch that changes nothing sends no change notice. Where watching
 * fails, the signature is polled every second instead.
 */
export class ToolsDirWatch {
  private dirWatch: FSWatcher | null = null;
  private homeWatch: FSWatcher | null = null;
  private settle: ClockTimer | null = null;
  private poll: ClockTimer | null = null;
  private last: string;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly onChange: () => void,
    private readonly onError: (message: string) => void,
  ) {
    this.last = signature(dir);
  }

  start(): void {
    try {
      this.homeWatch = watch(dirname(this.dir), { persistent: false }, (_event, name) => {
        if (name === null || name.toString() === basename(this.dir)) this.kick();
      });
      this.homeWatch.on('error', (err) => this.fallBack(err));
    } catch (err) {
      this.fallBack(err);
      return;
    }
    this.attach();
  }

  /** (Re)watches the tools folder if it exists now; its absence is not an error. */
  private attach(): void {
    if (this.closed || this.poll) return;
    this.dirWatch?.close();
    this.dirWatch = null;
    try {
      this.dirWatch = watch(this.dir, { persistent: false }, () => this.kick());
      this.dirWatch.on('error', () => {
        this.dirWatch?.close();
        this.dirWatch = null;
        this.kick();
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') this.fallBack(err);
    }
  }

  private fallBack(err: unknown): void {
    if (this.closed || this.poll) return;
    this.onError(`cannot watch ${this.dir} (${(err as Error)?.message ?? String(err)}); checking it every ${POLL_MS} ms instead`);
    this.dirWatch?.close();
    this.homeWatch?.close();
    this.dirWatch = this.homeWatch = null;
    const tick = () => {
      if (this.closed) return;
      this.check();
      this.poll = this.clock.setTimeout(tick, POLL_MS);
    };
    this.poll = this.clock.setTimeout(tick, POLL_MS);
  }

  private kick(): void {
    if (this.closed) return;
    if (this.settle) this.clock.clearTimeout(this.settle);
    this.settle = this.clock.setTimeout(() => {
      this.settle = null;
      this.attach();
      this.check();
    }, SETTLE_MS);
  }

  private check(): void {
    const now = signature(this.dir);
    if (now === this.last) return;
    this.last = now;
    try {
      this.onChange();
    } catch (err) {
      this.onError(`reloading ${this.dir} failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  close(): void {
    this.closed = true;
    if (this.settle) this.clock.clearTimeout(this.settle);
    if (this.poll) this.clock.clearTimeout(this.poll);
    this.dirWatch?.close();
    this.homeWatch?.close();
  }
}

/**
 * Name, size, mtime and inode of every *.json entry the loader reads (it reads
 * at most `limit` files; their count is kept too); '' when the folder is
 * missing or unreadable.
 */
export function signature(dir: string, limit = MAX_DECLARATIONS): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return '';
  }
  return `${names.length}\n` + names
    .slice(0, limit)
    .map((n) => {
      const st = statSync(join(dir, n), { throwIfNoEntry: false });
      return st ? `${n}\u0000${st.size}\u0000${st.mtimeMs}\u0000${st.ino}` : `${n}\u0000gone`;
    })
    .join('\n');
}
