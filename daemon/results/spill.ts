import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.js';
import type { Masked } from '../masking/masked.js';

/** Spill files older than this are removed. */
const SPILL_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** The spill directory is kept under this many bytes (oldest files go first). */
const SPILL_MAX_TOTAL_BYTES = 256 * 1024 * 1024;

interface SpillOptions {
  readonly dir: string;
  readonly clock: Clock;
  readonly maxAgeMs?: number;
  readonly maxTotalBytes?: number;
}

/** File extensions for the image types apps send most; any other image/* is kept as `.img`. */
const IMAGE_EXT = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['image/svg+xml', 'svg'],
  ['image/bmp', 'bmp'],
]);
/** The extensions spill files have (pruning touches nothing else). */
const SPILL_EXTS = new Set(['txt', 'img', ...IMAGE_EXT.values()]);

/**
 * The whole of an over-limit output, written owner-only to
 * `$AGENTTEAM_HOME/spill/<id>.txt` (an image an MCP result could not carry:
 * `<id>.png` and the like, its decoded bytes). After each write the
 * directory is pruned by age, then by total size, never removing the file
 * just written.
 */
export class SpillStore {
  private readonly maxAgeMs: number;
  private readonly maxTotal: number;

  constructor(private readonly opts: SpillOptions) {
    this.maxAgeMs = opts.maxAgeMs ?? SPILL_MAX_AGE_MS;
    this.maxTotal = opts.maxTotalBytes ?? SPILL_MAX_TOTAL_BYTES;
  }

  get dir(): string {
    return this.opts.dir;
  }

  /** Only masked text is ever written (the gate masks before it bounds). */
  write(text: Masked): { id: string; path: string; bytes: number } {
    return this.put(Buffer.from(text, 'utf8'), 'txt');
  }

  /** An image block's base64 `data` (masked like every string of a result), written as the image's bytes. */
  writeImage(base64: Masked, mimeType: string): { id: string; path: string; bytes: number } {
    return this.put(Buffer.from(base64, 'base64'), IMAGE_EXT.get(mimeType.toLowerCase()) ?? 'img');
  }

  private put(data: Buffer, ext: string): { id: string; path: string; bytes: number } {
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    const id = `${this.opts.clock.now().toString(36)}-${randomBytes(8).toString('hex')}`;
    const path = join(this.opts.dir, `${id}.${ext}`);
    writeFileSync(path, data, { mode: 0o600, flag: 'wx' });
    this.prune(path);
    return { id, path, bytes: data.length };
  }

  prune(keep?: string): void {
    let names: string[];
    try {
      names = readdirSync(this.opts.dir).filter((n) =>
        SPILL_EXTS.has(n.slice(n.lastIndexOf('.') + 1)),
      );
    } catch {
      return;
    }
    const now = this.opts.clock.now();
    const files: { path: string; mtime: number; size: number }[] = [];
    for (const n of names) {
      const path = join(this.opts.dir, n);
      try {
        const st = statSync(path);
        files.push({ path, mtime: st.mtimeMs, size: st.size });
      } catch {
        // removed meanwhile
      }
    }
    files.sort((a, b) => a.mtime - b.mtime);
    let total = files.reduce((s, f) => s + f.size, 0);
    for (const f of files) {
      if (f.path === keep) continue;
      if (now - f.mtime > this.maxAgeMs || total > this.maxTotal) {
        try {
          unlinkSync(f.path);
          total -= f.size;
        } catch {
          // best effort: a later prune retries
        }
      }
    }
  }
}
