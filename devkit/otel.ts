import { before, after } from 'node:test';
import { randomBytes } from 'node:crypto';
import { startDaemon, type Daemon } from './daemon.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

/**
 * A daemon process configured only by OTEL_* variables, exporting spans and
 * metrics over OTLP/HTTP (JSON) to a loopback collector. Importing this
 * module registers the file's before/after hooks (one daemon and one
 * collector per test file); `receiver` and `d` are set once they run.
 */

export const COLLECTOR_KEY = `collector-${randomBytes(12).toString('hex')}`;
export let receiver: OtlpReceiver;
export let d: Daemon;
const saved: Record<string, string | undefined> = {};

export const OTEL = {
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTEL_METRIC_EXPORT_INTERVAL: '300',
  OTEL_SERVICE_NAME: 'agentteam-otel-test',
  OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${COLLECTOR_KEY}`,
};

before(async () => {
  receiver = await startOtlpReceiver();
  // The daemon harness passes this process's environment to `daemon start`.
  for (const [k, v] of Object.entries({ ...OTEL, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  d = await startDaemon();
});

after(async () => {
  await d?.close();
  await receiver?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** A fresh W3C trace context as a caller's own span would send it. */
export function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

export const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
export const childrenOf = (span: ReceivedSpan) =>
  receiver.spans.filter((s) => s.parentSpanId === span.spanId);
