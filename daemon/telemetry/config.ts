/**
 * Reads the standard OTEL_* variables once, at daemon start. Telemetry export
 * is off unless an OTLP endpoint is named: the SDK default of
 * http://localhost:4318 is not assumed, so a daemon started in a shell that
 * happens to have OTEL_SERVICE_NAME set still loads nothing.
 */

type OtlpEncoding = 'protobuf' | 'json';

export interface OtelConfig {
  /** Export spans over OTLP/HTTP. */
  readonly traces: boolean;
  /** Export metrics over OTLP/HTTP (GET /metrics works either way). */
  readonly metrics: boolean;
  /** OTLP/HTTP body encoding per signal: http/protobuf (the specification's default) or http/json. */
  readonly encoding: { readonly traces: OtlpEncoding; readonly metrics: OtlpEncoding };
  /** What was set but is not honoured, for the daemon log. */
  readonly problems: readonly string[];
}

function set(env: NodeJS.ProcessEnv, name: string): boolean {
  return typeof env[name] === 'string' && env[name]!.trim() !== '';
}

function encodingOf(
  env: NodeJS.ProcessEnv,
  signal: 'TRACES' | 'METRICS',
  problems: string[],
): OtlpEncoding {
  const protocol = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    ''
  )
    .trim()
    .toLowerCase();
  if (protocol === 'http/json') return 'json';
  if (protocol !== '' && protocol !== 'http/protobuf') {
    problems.push(
      `OTLP protocol ${protocol.slice(0, 40)} is not supported; ${signal.toLowerCase()} are sent as http/protobuf`,
    );
  }
  return 'protobuf';
}

function signalOn(
  env: NodeJS.ProcessEnv,
  signal: 'TRACES' | 'METRICS',
  problems: string[],
): boolean {
  if (
    !set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') &&
    !set(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)
  )
    return false;
  const exporter = (env[`OTEL_${signal}_EXPORTER`] ?? 'otlp').trim().toLowerCase();
  if (exporter === 'none') return false;
  if (exporter !== 'otlp' && exporter !== '') {
    problems.push(
      `OTEL_${signal}_EXPORTER=${exporter.slice(0, 40)} is not supported (only otlp and none); ${signal.toLowerCase()} are not exported`,
    );
    return false;
  }
  return true;
}

export function readOtelConfig(env: NodeJS.ProcessEnv): OtelConfig {
  const problems: string[] = [];
  const off = {
    traces: false,
    metrics: false,
    encoding: { traces: 'protobuf', metrics: 'protobuf' } as const,
    problems,
  };
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return off;
  const traces = signalOn(env, 'TRACES', problems);
  const metrics = signalOn(env, 'METRICS', problems);
  const encoding = {
    traces: traces ? encodingOf(env, 'TRACES', problems) : 'protobuf',
    metrics: metrics ? encodingOf(env, 'METRICS', problems) : 'protobuf',
  } as const;
  return { traces, metrics, encoding, problems };
}
