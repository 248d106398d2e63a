/**
 * Long-lived streams one runtime authorization may hold open (the 2025 GET
 * notification stream, 2026 subscriptions/listen), and optionally all of
 * them together: a stream holds no admission slot once its response has
 * started, so without this one runtime could hold any number.
 */
export class StreamQuota {
  private readonly perAuth = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly perAuthorization: number,
    private readonly perDaemon = Infinity,
  ) {}

  get open(): number {
    return this.total;
  }

  /** Takes a slot for `authorizationId`: the function that gives it back (once, however often called), or null when full. */
  take(authorizationId: string): (() => void) | null {
    const mine = this.perAuth.get(authorizationId) ?? 0;
    if (mine >= this.perAuthorization || this.total >= this.perDaemon) return null;
    this.perAuth.set(authorizationId, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perAuth.get(authorizationId) ?? 1) - 1;
      if (left > 0) this.perAuth.set(authorizationId, left);
      else this.perAuth.delete(authorizationId);
      this.total--;
    };
  }
}
