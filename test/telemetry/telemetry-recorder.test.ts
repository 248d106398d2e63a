import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Recorder, MAX_SERIES, DURATION_BUCKETS } from '../../daemon/telemetry/recorder.js';
import { readOtelConfig } from '../../daemon/telemetry/config.js';

/** The recorder's bounds and the OTEL_* reading, below the daemon. */

test('a histogram holds MAX_SERIES attribute sets; the next ones fold into one overflow series', () => {
  const r = new Recorder();
  const h = r.histogram({ name: 'h', description: '', unit: 's' });
  for (let i = 0; i < MAX_SERIES; i++) h.record(0.001, { tool: `t${i}` });
  let snap = r.snapshot()[0]!;
  assert.equal(snap.points.length, MAX_SERIES, 'at the limit: every set kept');
  assert.ok(!snap.points.some((p) => p.attrs['otel.metric.overflow']));
  h.record(0.001, { tool: 'one-past' });
  h.record(0.002, { tool: 'two-past' });
  h.record(0.001, { tool: 't0' });
  snap = r.snapshot()[0]!;
  assert.equal(snap.points.length, MAX_SERIES + 1, 'one past: a single overflow series');
  const over = snap.points.find((p) => p.attrs['otel.metric.overflow'] === 'true')!;
  assert.equal(snap.kind === 'histogram' && (over as { count: number }).count, 2);
  assert.ok(!snap.points.some((p) => p.attrs.tool === 'one-past'));
});

test('a counter is bounded the same way', () => {
  const r = new Recorder();
  const c = r.counter({ name: 'c', description: '', unit: '1' });
  for (let i = 0; i <= MAX_SERIES; i++) c.add(1, { id: String(i) });
  const snap = r.snapshot()[0]!;
  assert.equal(snap.points.length, MAX_SERIES + 1);
  assert.deepEqual(snap.points.at(-1), { attrs: { 'otel.metric.overflow': 'true' }, value: 1 });
});

test('histogram buckets: a value on a boundary counts in that bucket, past the last in +Inf', () => {
  const r = new Recorder();
  const h = r.histogram({ name: 'h', description: '', unit: 's' });
  h.record(DURATION_BUCKETS[0]!, {});
  h.record(DURATION_BUCKETS[0]! * 1.01, {});
  h.record(DURATION_BUCKETS.at(-1)! + 1, {});
  const p = r.snapshot()[0]!.points[0] as unknown as {
    counts: number[];
    count: number;
    min: number;
    max: number;
  };
  assert.equal(p.counts[0], 1);
  assert.equal(p.counts[1], 1);
  assert.equal(p.counts.at(-1), 1);
  assert.equal(p.counts.length, DURATION_BUCKETS.length + 1);
  assert.equal(p.count, 3);
  assert.equal(p.max, DURATION_BUCKETS.at(-1)! + 1);
});

test('observed sources are read at collection and removed with their daemon; a failing source is skipped', () => {
  const r = new Recorder();
  let v = 1;
  const remove = r.observe(() => [
    { name: 'g', description: '', unit: '1', kind: 'gauge', read: () => [{ attrs: {}, value: v }] },
  ]);
  r.observe(() => {
    throw new Error('half stopped');
  });
  assert.equal((r.snapshot()[0]!.points[0] as { value: number }).value, 1);
  v = 5;
  assert.equal((r.snapshot()[0]!.points[0] as { value: number }).value, 5);
  remove();
  assert.deepEqual(r.snapshot(), []);
});

test('OTEL_* reading: off without an endpoint, per-signal endpoints and exporters, SDK disabled, encodings, unsupported values reported', () => {
  const read = (env: NodeJS.ProcessEnv) => {
    const c = readOtelConfig(env);
    return { traces: c.traces, metrics: c.metrics, problems: c.problems };
  };
  assert.deepEqual(read({}), { traces: false, metrics: false, problems: [] });
  assert.deepEqual(read({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }), {
    traces: false,
    metrics: false,
    problems: [],
  });
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), {
    traces: true,
    metrics: true,
    problems: [],
  });
  assert.equal(read({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }).traces, false);
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://h/v1/traces' }), {
    traces: true,
    metrics: false,
    problems: [],
  });
  assert.deepEqual(
    read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_METRICS_EXPORTER: 'none' }),
    { traces: true, metrics: false, problems: [] },
  );
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_SDK_DISABLED: 'TRUE' }), {
    traces: false,
    metrics: false,
    problems: [],
  });
  const zipkin = read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_TRACES_EXPORTER: 'zipkin' });
  assert.equal(zipkin.traces, false);
  assert.match(zipkin.problems[0]!, /OTEL_TRACES_EXPORTER=zipkin is not supported/);
  // http/protobuf is the default; http/json on request, per signal too; gRPC is reported and sent as protobuf.
  assert.deepEqual(readOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h' }).encoding, {
    traces: 'protobuf',
    metrics: 'protobuf',
  });
  assert.deepEqual(
    readOtelConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    }).encoding,
    { traces: 'json', metrics: 'json' },
  );
  assert.deepEqual(
    readOtelConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
    }).encoding,
    { traces: 'json', metrics: 'protobuf' },
  );
  const grpc = readOtelConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
  });
  assert.equal(grpc.traces, true);
  assert.deepEqual(grpc.encoding, { traces: 'protobuf', metrics: 'protobuf' });
  assert.equal(grpc.problems.length, 2, 'one line per signal');
  assert.deepEqual(
    read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })
      .problems,
    [],
  );
});
