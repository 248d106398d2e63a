import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OTLP/HTTP collector for tests: decodes the JSON encoding on
 * /v1/traces and /v1/metrics (what @opentelemetry/exporter-*-otlp-http
 * send) and keeps every span and metric data point; protobuf bodies are
 * accepted and kept as received (headers and bytes), not decoded.
 */

export interface OtlpAttr {
  key: string;
  value: {
    stringValue?: string;
    intValue?: string | number;
    boolValue?: boolean;
    doubleValue?: number;
  };
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number; message?: string };
  resource: Record<string, string | number | boolean>;
}

export interface ReceivedMetric {
  name: string;
  /** Every data point's attributes, flattened. */
  points: { attributes: Record<string, string | number | boolean>; raw: Record<string, unknown> }[];
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** Every request body as received (for "nothing secret anywhere" checks) and its headers. */
  readonly bodies: string[];
  readonly headers: IncomingHttpHeaders[];
  waitFor<T>(find: () => T | undefined, ms?: number): Promise<T>;
  close(): Promise<void>;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

function attrs(list: OtlpAttr[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const a of list ?? []) {
    const v = a.value;
    out[a.key] =
      v.stringValue ??
      (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
      v.boolValue ??
      v.doubleValue ??
      '';
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      headers.push(req.headers);
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      const body = JSON.parse(text) as Record<string, any>;
      if (req.url === '/v1/traces') {
        for (const rs of body.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: s.kind,
                attributes: attrs(s.attributes),
                status: s.status,
                resource,
              });
            }
          }
        }
      } else if (req.url === '/v1/metrics') {
        for (const rm of body.resourceMetrics ?? []) {
          for (const sm of rm.scopeMetrics ?? []) {
            for (const m of sm.metrics ?? []) {
              const data = m.histogram ?? m.sum ?? m.gauge ?? {};
              metrics.push({
                name: m.name,
                points: (data.dataPoints ?? []).map((p: Record<string, any>) => ({
                  attributes: attrs(p.attributes),
                  raw: p,
                })),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    bodies,
    headers,
    async waitFor(find, ms = 10_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = find();
        if (found !== undefined) return found;
        if (Date.now() > until)
          throw new Error(
            `not received within ${ms} ms; spans: ${JSON.stringify(spans.map((s) => s.name))}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
