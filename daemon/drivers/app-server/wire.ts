/**
 * The members of the app server's request and notification params that this
 * driver reads. The app server is not trusted: every leaf is unknown until
 * checked, and every read goes through `?.`, so a member of another kind
 * (a string where an object was expected) reads as undefined.
 */
export interface WireParams {
  readonly threadId?: unknown;
  readonly tool?: unknown;
  readonly namespace?: unknown;
  readonly arguments?: unknown;
  readonly item?: {
    readonly type?: unknown;
    readonly text?: unknown;
    readonly agentThreadId?: unknown;
    readonly senderThreadId?: unknown;
    readonly receiverThreadIds?: unknown;
  };
  readonly error?: { readonly message?: unknown };
  readonly turn?: { readonly status?: unknown; readonly error?: { readonly message?: unknown } };
  readonly thread?: {
    readonly id?: unknown;
    readonly parentThreadId?: unknown;
    readonly source?: {
      readonly subAgent?: { readonly thread_spawn?: { readonly parent_thread_id?: unknown } };
    };
  };
  readonly status?: { readonly type?: unknown };
}

/** Params as the driver reads them: an object's members, or none. */
export function wireParams(v: unknown): WireParams {
  return v !== null && typeof v === 'object' ? v : {};
}
