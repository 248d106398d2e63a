/**
 * The trace id of a W3C `traceparent` value (`00-<32 hex>-<16 hex>-<2 hex>`),
 * or null when the value is absent or not one (all-zero ids and the
 * reserved version ff are invalid by the W3C rules).
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-|$)/;
const ZEROS_32 = '0'.repeat(32);
const ZEROS_16 = '0'.repeat(16);

export function traceIdOf(traceparent: unknown): string | null {
  if (typeof traceparent !== 'string' || traceparent.length > 512) return null;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === 'ff' || m[2] === ZEROS_32 || m[3] === ZEROS_16) return null;
  // Version 00 has exactly four fields; later versions may add more after a dash.
  if (m[1] === '00' && traceparent.trim().length !== 55) return null;
  return m[2]!;
}

/** MCP: `params._meta.traceparent` wins over the request's `traceparent` header. */
export function mcpTraceId(
  params: Record<string, unknown>,
  header: string | undefined,
): string | null {
  const meta = params._meta;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
    const id = traceIdOf((meta as Record<string, unknown>).traceparent);
    if (id !== null) return id;
  }
  return traceIdOf(header);
}
