import { ValueType, type HrTime } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type MetricProducer,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { recorder, type Snapshot } from './recorder.js';

/**
 * The recorder's numbers in the OpenTelemetry SDK's data model, so the
 * SDK's own exporters (OTLP, the Prometheus serializer) write the wire
 * formats. Loaded only when something collects.
 */

const SCOPE = { name: 'agentteam', version: '0.1.0' };

/** service.name agentteam unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise. */
export function daemonResource(): Resource {
  return resourceFromAttributes({
    'service.name': 'agentteam',
    'service.version': SCOPE.version,
  }).merge(detectResources({ detectors: [envDetector] }));
}

function hr(ms: number): HrTime {
  return [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
}

function metricOf(s: Snapshot, start: HrTime, end: HrTime): MetricData {
  const descriptor = {
    name: s.name,
    description: s.description,
    unit: s.unit,
    valueType: ValueType.DOUBLE,
  };
  if (s.kind === 'histogram') {
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: s.points.map((p) => ({
        startTime: start,
        endTime: end,
        attributes: { ...p.attrs },
        value: {
          buckets: { boundaries: [...s.boundaries], counts: [...p.counts] },
          sum: p.sum,
          count: p.count,
          min: p.min,
          max: p.max,
        },
      })),
    };
  }
  const dataPoints = s.points.map((p) => ({
    startTime: start,
    endTime: end,
    attributes: { ...p.attrs },
    value: p.value,
  }));
  if (s.kind === 'counter')
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      dataPoints,
    };
  return {
    descriptor,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.GAUGE,
    dataPoints,
  };
}

export function collectResourceMetrics(resource: Resource): ResourceMetrics {
  const start = hr(recorder.startedAt);
  const end = hr(Date.now());
  return {
    resource,
    scopeMetrics: [
      { scope: SCOPE, metrics: recorder.snapshot().map((s) => metricOf(s, start, end)) },
    ],
  };
}

/** The recorder as a producer for an SDK metric reader (the OTLP exporter's periodic reader). */
export function recorderProducer(resource: Resource): MetricProducer {
  return {
    collect: async () => ({ resourceMetrics: collectResourceMetrics(resource), errors: [] }),
  };
}
