import {
  clientToolsStateText,
  writeClientToolsState,
  writeClientToolsStateAsync,
} from './state-file.js';

/**
 * How many client tool names a home remembers, and how large the file may
 * grow. An app that registers fresh names on every connect would otherwise
 * grow the file (and the work of each rewrite) forever: 600 registrations of
 * 64 names each made a 2.6 MB file rewritten on every registration. 1024
 * names are sixteen full daemons' worth of tools (64 each); 64 KiB holds
 * about 900 names of 60 bytes and is rewritten in well under a millisecond.
 */
export const REMEMBERED = { names: 1024, fileBytes: 64 * 1024 } as const;

/** Bytes one name adds to the file: its JSON string, the indent, the comma and the newline. */
const costOf = (name: string) => Buffer.byteLength(JSON.stringify(name)) + 6;
const BASE_BYTES = Buffer.byteLength(clientToolsStateText([])) + 8;

/**
 * The remembered names, oldest first. Registering a name makes it the
 * newest; past either bound the oldest are forgotten, except names the
 * current profile's denyTools entries use (forgetting those would make the
 * profile invalid at the next boot). The file is written off the request
 * path (one asynchronous write at a time, the changes made meanwhile
 * coalesced into the next) and synchronously on a clean stop, so nothing
 * remembered is lost.
 */
export class RememberedNames {
  private readonly order = new Map<string, number>();
  private bytes = BASE_BYTES;
  private dirty = false;
  private scheduled = false;
  private writing = false;
  private closed = false;
  /** Names that are never forgotten (the profile's denyTools). */
  pinned: () => ReadonlySet<string> = () => new Set();

  constructor(
    initial: readonly string[],
    private readonly path: string,
    private readonly log: (m: string) => void,
    private readonly limits: { readonly names: number; readonly fileBytes: number } = REMEMBERED,
  ) {
    for (const n of initial) this.add(n);
  }

  get size(): number {
    return this.order.size;
  }

  has(name: string): boolean {
    return this.order.has(name);
  }

  /** Oldest first. */
  names(): string[] {
    return [...this.order.keys()];
  }

  /** These names were registered now. */
  remember(names: readonly string[]): void {
    let fresh = false;
    for (const n of names) {
      if (this.order.has(n)) this.drop(n);
      else fresh = true;
      this.add(n);
    }
    if (!fresh) return; // only an order change: it rides along with the next write
    this.trim();
    this.dirty = true;
    this.schedule();
  }

  private add(name: string): void {
    const cost = costOf(name);
    this.order.set(name, cost);
    this.bytes += cost;
  }

  private drop(name: string): void {
    this.bytes -= this.order.get(name) ?? 0;
    this.order.delete(name);
  }

  private within(): boolean {
    return this.order.size <= this.limits.names && this.bytes <= this.limits.fileBytes;
  }

  private trim(): void {
    if (this.within()) return;
    const pinned = this.pinned();
    for (const n of [...this.order.keys()]) {
      if (this.within()) return;
      if (!pinned.has(n)) this.drop(n);
    }
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.closed) return;
    this.scheduled = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.writing = true;
    try {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        try {
          await writeClientToolsStateAsync(
            this.path,
            clientToolsStateText(this.names()),
            () => !this.closed,
          );
        } catch (err) {
          this.log(`client tools: cannot write ${this.path}: ${(err as Error).message}`);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Clean stop: what is not on disk yet is written now (an unfinished write is superseded). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.dirty && !this.writing) return;
    this.dirty = false;
    try {
      writeClientToolsState(this.path, clientToolsStateText(this.names()));
    } catch (err) {
      this.log(`client tools: cannot write ${this.path}: ${(err as Error).message}`);
    }
  }
}
