import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { collectResourceMetrics, daemonResource } from './otel-metrics.js';

/** Loaded on the first GET /metrics: the recorder's numbers in the Prometheus text format, by the SDK's serializer. */
const serializer = new PrometheusSerializer();
let resource: ReturnType<typeof daemonResource> | undefined;

export function renderPrometheus(): string {
  resource ??= daemonResource();
  return serializer.serialize(collectResourceMetrics(resource));
}
