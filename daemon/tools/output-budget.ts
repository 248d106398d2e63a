/**
 * The bytes of declared-command output the daemon process holds in memory
 * at once, across every call in flight. Each call joins the budget when its
 * command starts and counts every chunk it keeps; when the budget is full,
 * every call but the oldest stops reading its pipes, so its command blocks
 * on its next write (the kernel's pipe buffer is the only backlog) until
 * room comes back; the oldest call always reads on, so some call always
 * makes progress and none waits for ever (each still has its timeout). The
 * memory held is thus at most the budget, plus what the oldest call holds
 * beyond it (at most one call's own limit), plus one pipe read (64 KiB) per
 * waiting stream. One budget per process: memory (RSS) is per process.
 */
export class OutputBudget {
  private used = 0;
  private nextId = 0;
  /** Calls in the order they joined: the first is the one that always reads on. */
  private readonly calls = new Map<number, Share>();
  /** Most bytes held at once (tests, diagnostics). */
  peak = 0;

  constructor(readonly maxBytes: number) {}

  get inUse(): number {
    return this.used;
  }

  /** A call's share of the budget, from its start to its end (`leave`). */
  join(): BudgetShare {
    const share: Share = { id: ++this.nextId, held: 0, waiting: [] };
    this.calls.set(share.id, share);
    return {
      take: (n) => {
        share.held += n;
        this.used += n;
        if (this.used > this.peak) this.peak = this.used;
        return this.used <= this.maxBytes || this.isOldest(share);
      },
      whenRoom: (resume) => {
        share.waiting.push(resume);
        this.wake();
      },
      leave: () => {
        if (!this.calls.delete(share.id)) return;
        this.used -= share.held;
        share.held = 0;
        share.waiting.length = 0;
        this.wake();
      },
    };
  }

  private isOldest(share: Share): boolean {
    return this.calls.keys().next().value === share.id;
  }

  /** Resumes the oldest call if it waits, and every waiting call while there is room. */
  private wake(): void {
    for (const share of this.calls.values()) {
      if (share.waiting.length === 0) continue;
      if (this.used > this.maxBytes && !this.isOldest(share)) continue;
      for (const resume of share.waiting.splice(0)) resume();
    }
  }
}

interface Share {
  readonly id: number;
  held: number;
  readonly waiting: (() => void)[];
}

interface BudgetShare {
  /** Counts n more bytes held; false when the caller should stop reading until `whenRoom` calls back. */
  take(n: number): boolean;
  /** Calls `resume` once there is room again (or this call became the oldest). */
  whenRoom(resume: () => void): void;
  /** Gives back everything this call held. */
  leave(): void;
}

/** Output all calls together may hold in memory: one maximal output (64 MiB). */
const OUTPUT_BUDGET_BYTES = 64 * 1024 * 1024;

export const outputBudget = new OutputBudget(OUTPUT_BUDGET_BYTES);
