import { watch, type Dirent, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSafeDir } from './walk.js';

/** More folders than this and the index falls back to rescanning (each folder costs one inotify watch). */
const MAX_WATCHED_DIRS = 4096;
const MAX_DEPTH = 32;

/**
 * Watches a folder tree with one non-recursive watcher per folder. On Linux a
 * folder's watch reports changes to the files in it, so this costs one
 * inotify watch per folder, where Node 20's recursive mode adds one per file
 * and stats every file synchronously while setting up (about a second of
 * event-loop stall for 10,000 files). Links are never followed; hidden
 * folders are not watched. `onPath` gets every relative path an event names
 * (a folder path when the event has no file name).
 */
export class DirWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  failed = false;

  constructor(
    private readonly root: string,
    private readonly onPath: (rel: string) => void,
    private readonly onFail: (err: unknown) => void,
  ) {}

  async start(): Promise<void> {
    await this.addTree('', 0);
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.close();
    this.onFail(err);
  }

  private watchOne(rel: string): boolean {
    if (this.closed || this.watchers.has(rel)) return false;
    if (this.watchers.size >= MAX_WATCHED_DIRS) {
      this.fail(new Error(`more than ${MAX_WATCHED_DIRS} folders to watch`));
      return false;
    }
    const abs = rel === '' ? this.root : join(this.root, ...rel.split('/'));
    let w: FSWatcher;
    try {
      w = watch(abs, { persistent: false }, (event, name) => {
        if (name === null) return this.onPath(rel);
        const child = rel === '' ? name.toString() : `${rel}/${name.toString()}`;
        this.onPath(child);
        if (event === 'rename' && !name.toString().startsWith('.')) {
          if (isSafeDir(this.root, child)) void this.addTree(child, child.split('/').length);
          else this.removeTree(child);
        }
      });
    } catch (err) {
      if (rel === '') this.fail(err);
      return false;
    }
    w.on('error', (err) => {
      w.close();
      this.watchers.delete(rel);
      if (rel === '') this.fail(err);
      else this.onPath(rel);
    });
    this.watchers.set(rel, w);
    return true;
  }

  private async addTree(rel: string, depth: number): Promise<void> {
    if (!this.watchOne(rel) || depth >= MAX_DEPTH) return;
    let entries: Dirent[];
    try {
      entries = await readdir(rel === '' ? this.root : join(this.root, ...rel.split('/')), {
        withFileTypes: true,
      });
    } catch {
      return;
    }
    for (const e of entries) {
      if (this.closed) return;
      if (e.isDirectory() && !e.name.startsWith('.'))
        await this.addTree(rel === '' ? e.name : `${rel}/${e.name}`, depth + 1);
    }
  }

  private removeTree(rel: string): void {
    for (const [k, w] of this.watchers) {
      if (k === rel || k.startsWith(`${rel}/`)) {
        w.close();
        this.watchers.delete(k);
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
