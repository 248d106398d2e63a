/**
 * The daemon's metrics, kept in plain numbers so that recording costs a map
 * lookup and a few increments whether or not anything exports them. The
 * OpenTelemetry metrics SDK and the Prometheus serializer are loaded only
 * when something reads them (an OTLP export, GET /metrics): see
 * otel-metrics.ts, which turns a snapshot into the SDK's data model.
 *
 * Every instrument bounds its series: past MAX_SERIES distinct attribute
 * sets, new ones are folded into one series marked otel.metric.overflow=true
 * (the SDK's own cardinality-limit convention), so no caller can grow memory
 * or a scrape without bound.
 */

export type Attrs = Readonly<Record<string, string>>;

export const MAX_SERIES = 2000;
const OVERFLOW: Attrs = { 'otel.metric.overflow': 'true' };

/** Seconds. The MCP conventions' advice, with sub-10 ms buckets added: most daemon calls end well under 10 ms. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

interface HistogramPoint {
  readonly attrs: Attrs;
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
  readonly min: number;
  readonly max: number;
}

interface InstrumentInfo {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
}

export type Snapshot =
  | (InstrumentInfo & {
      readonly kind: 'histogram';
      readonly boundaries: readonly number[];
      readonly points: readonly HistogramPoint[];
    })
  | (InstrumentInfo & {
      readonly kind: 'counter' | 'gauge';
      readonly points: readonly { attrs: Attrs; value: number }[];
    });

function keyOf(attrs: Attrs): string {
  let k = '';
  for (const name in attrs) k += `${name}\u0000${attrs[name]}\u0001`;
  return k;
}

/** The series of `attrs`, made on first use; past MAX_SERIES distinct sets, the one overflow series. */
function seriesOf<S>(series: Map<string, S>, attrs: Attrs, make: (attrs: Attrs) => S): S {
  let key = keyOf(attrs);
  let s = series.get(key);
  if (s !== undefined) return s;
  if (series.size >= MAX_SERIES) {
    key = keyOf(OVERFLOW);
    attrs = OVERFLOW;
    s = series.get(key);
    if (s !== undefined) return s;
  }
  s = make({ ...attrs });
  series.set(key, s);
  return s;
}

interface HistSeries {
  attrs: Attrs;
  counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

class Histogram {
  private readonly series = new Map<string, HistSeries>();

  constructor(
    readonly info: InstrumentInfo,
    readonly boundaries: readonly number[] = DURATION_BUCKETS,
  ) {}

  record(value: number, attrs: Attrs): void {
    this.add(this.seriesFor(attrs), value);
  }

  /** The series of `attrs` resolved once: recording into it is then a few increments (hot paths keep these). */
  bind(attrs: Attrs): (value: number) => void {
    const s = this.seriesFor(attrs);
    return (value) => this.add(s, value);
  }

  private seriesFor(attrs: Attrs): HistSeries {
    return seriesOf(this.series, attrs, (a) => ({
      attrs: a,
      counts: new Array<number>(this.boundaries.length + 1).fill(0),
      sum: 0,
      count: 0,
      min: Infinity,
      max: -Infinity,
    }));
  }

  private add(s: HistSeries, value: number): void {
    let i = 0;
    while (i < this.boundaries.length && value > this.boundaries[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
    if (value < s.min) s.min = value;
    if (value > s.max) s.max = value;
  }

  snapshot(): Snapshot {
    const points = [...this.series.values()].map((s) => ({
      attrs: s.attrs,
      counts: [...s.counts],
      sum: s.sum,
      count: s.count,
      min: s.min,
      max: s.max,
    }));
    return { ...this.info, kind: 'histogram', boundaries: this.boundaries, points };
  }
}

class Counter {
  private readonly series = new Map<string, { attrs: Attrs; value: number }>();

  constructor(readonly info: InstrumentInfo) {}

  add(n: number, attrs: Attrs): void {
    const s = seriesOf(this.series, attrs, (a) => ({ attrs: a, value: 0 }));
    s.value += n;
  }

  /** The series of `attrs` resolved once (see Histogram.bind). */
  bind(attrs: Attrs): (n: number) => void {
    const s = seriesOf(this.series, attrs, (a) => ({ attrs: a, value: 0 }));
    return (n) => {
      s.value += n;
    };
  }

  snapshot(): Snapshot {
    return {
      ...this.info,
      kind: 'counter',
      points: [...this.series.values()].map((s) => ({ attrs: s.attrs, value: s.value })),
    };
  }
}

/** A value read when metrics are collected (runtimes, open connections, store counters). */
export interface Observed extends InstrumentInfo {
  readonly kind: 'counter' | 'gauge';
  read(): readonly { attrs: Attrs; value: number }[];
}

/**
 * One process's instruments. A daemon process runs one daemon; tests that
 * start several in one process share the recorded counters, while each
 * daemon's observed values are registered and removed with it.
 */
export class Recorder {
  readonly startedAt = Date.now();
  private readonly instruments: (Histogram | Counter)[] = [];
  private readonly observed = new Set<() => readonly Observed[]>();

  histogram(info: InstrumentInfo): Histogram {
    const h = new Histogram(info);
    this.instruments.push(h);
    return h;
  }

  counter(info: InstrumentInfo): Counter {
    const c = new Counter(info);
    this.instruments.push(c);
    return c;
  }

  /** Adds a source of observed values; returns its removal. */
  observe(source: () => readonly Observed[]): () => void {
    this.observed.add(source);
    return () => this.observed.delete(source);
  }

  snapshot(): Snapshot[] {
    const out: Snapshot[] = this.instruments.map((i) => i.snapshot());
    const merged = new Map<string, Snapshot & { kind: 'counter' | 'gauge' }>();
    for (const source of this.observed) {
      let list: readonly Observed[];
      try {
        list = source();
      } catch {
        continue; // a daemon half stopped: its values are simply missing from this collection
      }
      for (const o of list) {
        const points = o.read().map((p) => ({ attrs: p.attrs, value: p.value }));
        const known = merged.get(o.name);
        if (known) (known.points as { attrs: Attrs; value: number }[]).push(...points);
        else
          merged.set(o.name, {
            name: o.name,
            description: o.description,
            unit: o.unit,
            kind: o.kind,
            points,
          });
      }
    }
    return [...out, ...merged.values()].filter((s) => s.points.length > 0);
  }
}

export const recorder = new Recorder();
