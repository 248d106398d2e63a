import type { ClientToolSpec } from './types.js';

/**
 * How each relay's contract spells a tool's deadline, the one place the
 * broker's milliseconds become `timeout_s` (HTTP/SSE: whole seconds, 0 for
 * a hand-off that never times out) or `timeout_ms` (stdio: kept to the
 * millisecond). Fingerprints cover the descriptor as the tool's own relay
 * spells it, so a saved scope names what the app registered.
 */

/** HTTP's `timeout_s`: whole seconds (a stdio deadline rounded up), 0 for never. */
export const timeoutSeconds = (spec: ClientToolSpec): number =>
  spec.timeoutMs === null ? 0 : Math.ceil(spec.timeoutMs / 1000);

/** The deadline under its own relay's field name. */
export function timeoutField(spec: ClientToolSpec): { timeout_ms: number } | { timeout_s: number } {
  return spec.relay === 'stdio' && spec.timeoutMs !== null
    ? { timeout_ms: spec.timeoutMs }
    : { timeout_s: timeoutSeconds(spec) };
}

/** The deadline as a person reads it, in its relay's unit: `1000 ms`, `30 s`. */
export const timeoutText = (spec: ClientToolSpec): string =>
  spec.relay === 'stdio' ? `${spec.timeoutMs} ms` : `${timeoutSeconds(spec)} s`;

/** The effective descriptor a fingerprint covers: what the app registered, its timeout made explicit. */
export function effectiveDescriptor(spec: ClientToolSpec): Record<string, unknown> {
  const { name, description, input_schema } = spec;
  return { name, description, input_schema, ...timeoutField(spec) };
}
