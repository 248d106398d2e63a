import { isGateMiddleware } from './gate.js';

export interface RouteEntry {
  readonly method: string;
  readonly path: string;
  /** Whether the result gate's middleware runs before this entry on a path that covers it, so it sees the response last. */
  readonly gated: boolean;
}

/**
 * Every entry of a hono route table (handlers and middleware) but the gate
 * itself. A route registered before the gate, or on a path the gate does not
 * cover, comes out `gated: false`; a test walks this table.
 */
export function routeTable(
  routes: readonly { method: string; path: string; handler: unknown }[],
): RouteEntry[] {
  const gateAt = routes.findIndex(
    (r) => (r.path === '/*' || r.path === '*') && isGateMiddleware(r.handler),
  );
  return routes.flatMap((r, i) =>
    isGateMiddleware(r.handler)
      ? []
      : [{ method: r.method, path: r.path, gated: gateAt >= 0 && i > gateAt }],
  );
}
