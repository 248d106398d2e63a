import { readOtelConfig } from './config.js';
import { setTracing } from './tracing.js';

interface Telemetry {
  /** Flushes and stops the exporters (bounded: a dead collector does not hold up the stop). */
  shutdown(): Promise<void>;
}

const FLUSH_MS = 3_000;

/**
 * Starts OTLP export when the OTEL_* variables ask for it: only then is the
 * SDK imported. Returns null when nothing is exported (the usual case).
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  log: (event: string, fields: Record<string, unknown>) => void,
): Promise<Telemetry | null> {
  const config = readOtelConfig(env);
  for (const problem of config.problems) log('telemetry', { problem });
  if (!config.traces && !config.metrics) return null;
  let started: Awaited<ReturnType<typeof import('./sdk.js').startSdk>>;
  try {
    const { startSdk } = await import('./sdk.js');
    started = await startSdk(env, config);
  } catch (err) {
    // A malformed endpoint must not keep the daemon from starting. The message is not logged: an
    // endpoint URL may carry credentials.
    log('telemetry', {
      problem: `the OTLP exporter could not be set up (${(err as Error)?.name ?? 'error'}); nothing is exported`,
    });
    return null;
  }
  setTracing(started.tracing);
  log('telemetry', { traces: config.traces, metrics: config.metrics, encoding: config.encoding });
  return {
    async shutdown() {
      setTracing(null);
      let t: NodeJS.Timeout | undefined;
      await Promise.race([started.shutdown(), new Promise((r) => (t = setTimeout(r, FLUSH_MS)))]);
      clearTimeout(t);
    },
  };
}
