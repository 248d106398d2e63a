/**
 * Reads the standard OTEL_* variables once, at daemon start. Telemetry export
 * is off unless an OTLP endpoint is named: the SDK default of
 * http://localhost:4318 is not assumed, so a daemon started in a shell that
 * happens to have OTEL_SERVICE_NAME set still loads nothing.
 */

export interface OtelConfig {
  /** Export spans over OTLP/HTTP. */
  readonly traces: boolean;
  /** Export metrics over OTLP/HTTP (GET /metrics works either way). */
  readonly metrics: boolean;
  /** What was set but is not honoured, for the daemon log. */
  readonly problems: readonly string[];
}

const SUPPORTED_PROTOCOLS = new Set(['http/json', '']);

function set(env: NodeJS.ProcessEnv, name: string): boolean {
  return typeof env[name] === 'string' && env[name]!.trim() !== '';
}

function signalOn(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS', problems: string[]): boolean {
  if (!set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') && !set(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)) return false;
  const exporter = (env[`OTEL_${signal}_EXPORTER`] ?? 'otlp').trim().toLowerCase();
  if (exporter === 'none') return false;
  if (exporter !== 'otlp' && exporter !== '') {
    problems.push(`OTEL_${signal}_EXPORTER=${exporter.slice(0, 40)} is not supported (only otlp and none); ${signal.toLowerCase()} are not exported`);
    return false;
  }
  const protocol = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim().toLowerCase();
  if (!SUPPORTED_PROTOCOLS.has(protocol)) {
    problems.push(`OTLP protocol ${protocol.slice(0, 40)} is not supported; ${signal.toLowerCase()} are sent as http/json`);
  }
  return true;
}

export function readOtelConfig(env: NodeJS.ProcessEnv): OtelConfig {
  const problems: string[] = [];
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return { traces: false, metrics: false, problems };
  const traces = signalOn(env, 'TRACES', problems);
  const metrics = signalOn(env, 'METRICS', problems);
  return { traces, metrics, problems };
}

