import { lstatSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Clock, ClockTimer } from '../../lib/clock.js';
import { MAX_DECLARATIONS } from '../../lib/tool-files.js';

/** Quiet time after the last event before the declarations are read again (an editor's save is several events). */
const SETTLE_MS = 250;
/** While the folder is missing, or the kernel will not watch it (inotify limits), it is looked at this often. */
const POLL_MS = 1_000;

/**
 * Watches `$AGENTTEAM_HOME/tools/` so a new, changed or removed declaration
 * takes effect without `daemon reload`. While the folder exists, one
 * non-recursive `fs.watch` on it (not on the home, whose store and log
 * files change all the time); while it does not, or where the kernel will
 * not watch it (inotify limits), the folder is looked at every second.
 * Events are only a hint: after they settle, a signature of the folder
 * (each *.json file's name, size, mtime and inode) is compared with the last
 * one, and `onChange` runs only when it differs, so an event that leaves the
 * declarations as they were (a chmod, a file that is not *.json) sends no
 * change notice.
 */
export class ToolsDirWatch {
  private dirWatch: FSWatcher | null = null;
  /** Inode of the watched folder: a watch follows its folder, so a new folder at the path needs a new watch. */
  private watchedIno = -1;
  private settle: ClockTimer | null = null;
  private poll: ClockTimer | null = null;
  /** Set when watching failed for a reason other than the folder's absence: poll for good. */
  private watchBroken = false;
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
    if (!this.attach()) this.startPolling();
  }

  /** Watches the folder if it exists and watching works; true when it does. */
  private attach(): boolean {
    if (this.closed || this.watchBroken) return false;
    if (this.dirWatch) return true;
    try {
      const ino = statSync(this.dir).ino;
      const w = watch(this.dir, { persistent: false }, () => this.kick());
      this.watchedIno = ino;
      // The folder was removed (or the watch died): look again, which falls back to polling.
      w.on('error', () => {
        w.close();
        if (this.dirWatch === w) this.dirWatch = null;
        this.kick();
      });
      this.dirWatch = w;
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        this.watchBroken = true;
        this.onError(
          `cannot watch ${this.dir} (${(err as Error).message}); checking it every ${POLL_MS} ms instead`,
        );
      }
      return false;
    }
  }

  private startPolling(): void {
    if (this.closed || this.poll) return;
    const tick = () => {
      this.poll = null;
      if (this.closed) return;
      this.check();
      if (!this.attach()) this.poll = this.timer(tick, POLL_MS);
    };
    this.poll = this.timer(tick, POLL_MS);
  }

  private kick(): void {
    if (this.closed) return;
    if (this.settle) this.clock.clearTimeout(this.settle);
    this.settle = this.timer(() => {
      this.settle = null;
      this.check();
      // A watch on a folder that was removed (or moved away and replaced) sees nothing more: start over.
      if (this.dirWatch && statSync(this.dir, { throwIfNoEntry: false })?.ino !== this.watchedIno) {
        this.dirWatch.close();
        this.dirWatch = null;
      }
      if (!this.attach()) this.startPolling();
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

  /** A timer that never keeps the process alive by itself. */
  private timer(fn: () => void, ms: number): ClockTimer {
    const t = this.clock.setTimeout(fn, ms);
    t.unref?.();
    return t;
  }

  close(): void {
    this.closed = true;
    if (this.settle) this.clock.clearTimeout(this.settle);
    if (this.poll) this.clock.clearTimeout(this.poll);
    this.dirWatch?.close();
    this.dirWatch = null;
  }
}

/**
 * Name, size, mtime and inode of every *.json entry the loader reads (it reads
 * at most `limit` files; their count is kept too); '' when the folder is
 * missing or unreadable.
 */
function signature(dir: string, limit = MAX_DECLARATIONS): string {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return '';
  }
  return (
    `${names.length}\n` +
    names
      .slice(0, limit)
      .map((n) => {
        // lstat: the loader never follows a link, so a link's target changing changes nothing.
        const st = lstatSync(join(dir, n), { throwIfNoEntry: false });
        return st ? `${n}\u0000${st.size}\u0000${st.mtimeMs}\u0000${st.ino}` : `${n}\u0000gone`;
      })
      .join('\n')
  );
}
