import {
  context,
  trace,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  screenedCarrier,
  type Carrier,
  type SpanAttrs,
  type SpanHandle,
  type Tracing,
} from './tracing.js';
import type { OtelConfig } from './config.js';
import { daemonResource, recorderProducer } from './otel-metrics.js';
import { RequestContextManager } from './request-context.js';

/**
 * The OpenTelemetry SDK, set up from the standard OTEL_* variables. This
 * module is imported (dynamically) only when an OTLP endpoint is
 * configured; nothing else in the daemon imports an @opentelemetry package
 * at start.
 */

const KINDS = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
} as const;

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const v = Number(env[name]);
  return Number.isFinite(v) && v >= min ? v : fallback;
}

/** OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG as the specification names them. */
function samplerFrom(env: NodeJS.ProcessEnv): Sampler {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  switch ((env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

class Handle implements SpanHandle {
  constructor(
    readonly span: Span,
    readonly ctx: Context,
  ) {}
  set(attrs: SpanAttrs): void {
    this.span.setAttributes(attrs);
  }
  rename(name: string): void {
    this.span.updateName(name);
  }
  fail(errorType: string): void {
    this.span.setAttribute('error.type', errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  }
  end(): void {
    this.span.end();
  }
}

/** A child asked for outside any request (a scheduler tick, start-up): no span, the work just runs. */
const NONE: SpanHandle = { set() {}, rename() {}, fail() {}, end() {} };

interface Started {
  readonly tracing: Tracing | null;
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP exporters for the configured encoding; only the one in use is loaded. */
async function exporters(config: OtelConfig) {
  const [traces, metrics] = await Promise.all([
    !config.traces
      ? undefined
      : config.encoding.traces === 'json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
    !config.metrics
      ? undefined
      : config.encoding.metrics === 'json'
        ? import('@opentelemetry/exporter-metrics-otlp-http')
        : import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  return {
    traces: traces && (() => new traces.OTLPTraceExporter()),
    metrics: metrics && (() => new metrics.OTLPMetricExporter()),
  };
}

export async function startSdk(env: NodeJS.ProcessEnv, signals: OtelConfig): Promise<Started> {
  const made = await exporters(signals);
  const resource = daemonResource();
  const stops: (() => Promise<void>)[] = [];
  let tracing: Tracing | null = null;
  if (made.traces) {
    const contextManager = new RequestContextManager();
    context.setGlobalContextManager(contextManager);
    const propagator = new W3CTraceContextPropagator();
    const provider = new TracerProvider({
      resource,
      sampler: samplerFrom(env),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: made.traces(),
          scheduledDelayMillis: num(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
          maxQueueSize: num(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048),
          maxExportBatchSize: num(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
          exportTimeoutMillis: num(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000),
        }),
      ],
    });
    const tracer = provider.getTracer('agentteam', '0.1.0');
    tracing = {
      server(name, attrs, carrier: Carrier | undefined) {
        const parent = carrier?.traceparent
          ? propagator.extract(ROOT_CONTEXT, screenedCarrier(carrier)!, defaultTextMapGetter)
          : ROOT_CONTEXT;
        const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: attrs }, parent);
        return new Handle(span, trace.setSpan(parent, span));
      },
      root(name, attrs) {
        const span = tracer.startSpan(
          name,
          { kind: SpanKind.INTERNAL, attributes: attrs },
          ROOT_CONTEXT,
        );
        return new Handle(span, trace.setSpan(ROOT_CONTEXT, span));
      },
      child(name, attrs, kind) {
        const parent = context.active();
        if (trace.getSpan(parent) === undefined) return NONE;
        const span = tracer.startSpan(name, { kind: KINDS[kind], attributes: attrs }, parent);
        return new Handle(span, trace.setSpan(parent, span));
      },
      within(span, fn) {
        return span instanceof Handle ? contextManager.with(span.ctx, fn) : fn();
      },
      withinSync(span, fn) {
        return span instanceof Handle ? contextManager.withSync(span.ctx, fn) : fn();
      },
      inject() {
        const active = context.active();
        if (trace.getSpan(active) === undefined) return undefined;
        const carrier: Record<string, string> = {};
        propagator.inject(active, carrier, defaultTextMapSetter);
        if (carrier.traceparent === undefined) return undefined;
        return carrier.tracestate
          ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
          : { traceparent: carrier.traceparent };
      },
      shutdown: () => provider.shutdown(),
    };
    stops.push(async () => {
      await provider.shutdown();
      contextManager.disable();
    });
  }
  if (made.metrics) {
    const interval = num(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60000);
    const meters = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: made.metrics(),
          exportIntervalMillis: interval,
          exportTimeoutMillis: Math.min(interval, num(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30000)),
          metricProducers: [recorderProducer(resource)],
        }),
      ],
    });
    stops.push(() => meters.shutdown());
  }
  return { tracing, shutdown: async () => void (await Promise.allSettled(stops.map((s) => s()))) };
}
