import { test, before, after } from 'node:test';
import { strict as assert } from 'node:assert';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { rpc, rawRequest } from '../../devkit/http.js';

/**
 * GET /metrics with telemetry export unset: the Prometheus text format,
 * written by the OpenTelemetry Prometheus serializer and read back here by
 * an independent parser; operator-authenticated like the rest of the
 * operator API. And the daemon's start-up path imports no OpenTelemetry
 * package at all.
 */

interface Family {
  name: string;
  type: string;
  metrics: {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
  }[];
}
const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Family[];

let d: Daemon;
before(async () => {
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
  d = await startDaemon();
});
after(() => d?.close());

const opToken = () => readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
const metrics = (headers: Record<string, string>) =>
  rawRequest(new URL('/metrics', d.url).toString(), 'GET', headers);

test('GET /metrics is refused without the operator token, with a wrong one, and with a runtime token', async () => {
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1' });
  try {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer nope' },
      { authorization: `Bearer ${lease.token()}` },
      { authorization: opToken() },
    ]) {
      const res = await metrics(headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(JSON.parse(res.body).error.code, 'forbidden');
      assert.ok(!res.body.includes('agentteam_'), 'no metric leaks in a refusal');
    }
  } finally {
    lease.close();
  }
});

test('GET /metrics parses as Prometheus text: call durations, calls by outcome, runtimes, connections, store counters', async () => {
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1' });
  try {
    const exec = lease.mcpUrl.replace('/api/internal/mcp/', '/api/internal/exec/');
    const auth = { authorization: `Bearer ${lease.token()}`, 'content-type': 'application/json' };
    assert.equal(
      (await rawRequest(`${exec}/task/create`, 'POST', auth, JSON.stringify({ title: 'metrics' })))
        .status,
      200,
    );
    assert.equal(
      (
        await rawRequest(
          `${exec}/task/get`,
          'POST',
          auth,
          JSON.stringify({ id: 'task_01J9Z3K8Q2' }),
        )
      ).status,
      404,
    );
    const sent = await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'message_send', arguments: { target: 'channel:m', content: 'x' } },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    assert.equal(sent.status, 200, sent.body);

    const res = await metrics({ authorization: `Bearer ${opToken()}` });
    assert.equal(res.status, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const families = new Map(parse(res.body).map((f) => [f.name, f]));
    const family = (name: string) => {
      const f = families.get(name);
      assert.ok(f, `${name} in ${[...families.keys()].join(', ')}`);
      return f;
    };

    // The parser folds every series of a histogram into one (it follows an early Python client parser),
    // so histogram families are checked for their type here and read series by series as their samples.
    assert.equal(family('mcp_server_operation_duration').type, 'HISTOGRAM');
    assert.equal(family('agentteam_exec_operation_duration').type, 'HISTOGRAM');
    const samples = new Map<string, Family['metrics']>();
    for (const f of parse(res.body.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped')))
      samples.set(f.name, [...(samples.get(f.name) ?? []), ...f.metrics]);
    const series = (name: string, labels: Record<string, string | undefined>) =>
      (samples.get(name) ?? []).filter((m) =>
        Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
      );

    const send = series('mcp_server_operation_duration_count', {
      gen_ai_tool_name: 'message_send',
      mcp_method_name: 'tools/call',
      mcp_protocol_version: '2025-06-18',
      error_type: undefined,
    });
    assert.equal(
      send.length,
      1,
      JSON.stringify(samples.get('mcp_server_operation_duration_count')),
    );
    assert.ok(Number(send[0]!.value) >= 1);
    const buckets = series('mcp_server_operation_duration_bucket', {
      gen_ai_tool_name: 'message_send',
    });
    assert.ok(buckets.length > 5, 'bucketed');
    assert.equal(
      buckets.find((b) => b.labels?.le === '+Inf')?.value,
      send[0]!.value,
      'the +Inf bucket holds every call',
    );

    assert.equal(
      series('agentteam_exec_operation_duration_count', {
        agentteam_exec_domain: 'task',
        agentteam_exec_action: 'create',
        error_type: undefined,
      }).length,
      1,
    );
    assert.equal(
      series('agentteam_exec_operation_duration_count', {
        agentteam_exec_domain: 'task',
        agentteam_exec_action: 'get',
        error_type: 'not_found',
      }).length,
      1,
    );

    const calls = family('agentteam_calls_total');
    assert.equal(calls.type, 'COUNTER');
    const count = (labels: Record<string, string>) =>
      Number(
        calls.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
          ?.value ?? 0,
      );
    assert.ok(
      count({
        agentteam_transport: 'exec',
        agentteam_tool: 'task/create',
        agentteam_outcome: 'ok',
      }) >= 1,
    );
    assert.ok(
      count({
        agentteam_transport: 'exec',
        agentteam_tool: 'task/get',
        agentteam_outcome: 'not_found',
      }) >= 1,
    );
    assert.ok(
      count({
        agentteam_transport: 'mcp',
        agentteam_tool: 'message_send',
        agentteam_outcome: 'ok',
      }) >= 1,
    );

    const runtimes = family('agentteam_runtimes');
    assert.equal(runtimes.type, 'GAUGE');
    assert.ok(
      Number(runtimes.metrics.find((m) => m.labels?.agentteam_runtime_state === 'active')?.value) >=
        1,
    );
    assert.ok(Number(family('agentteam_connections_open').metrics[0]?.value) >= 1);
    assert.equal(family('agentteam_connections_shed_total').type, 'COUNTER');
    assert.ok(
      Number(
        family('agentteam_store_transactions_total').metrics.find(
          (m) => m.labels?.db_system_name === 'sqlite',
        )?.value,
      ) >= 1,
    );
    assert.equal(Number(family('agentteam_client_tools_pending').metrics[0]?.value), 0);
    assert.ok(families.has('agentteam_store_retries_total'));
  } finally {
    lease.close();
  }
});

/** Every package the daemon entry reaches through static imports (dynamic import() is where optional parts wait). */
function staticPackages(entry: string): Set<string> {
  const STATIC =
    /(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1] ?? m[2] ?? '';
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else
        packages.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return packages;
}

test('the daemon start-up path imports no OpenTelemetry package: the SDK waits behind a dynamic import', () => {
  const dist = fileURLToPath(new URL('../../', import.meta.url));
  // main.js checks the home and then loads the server with one import() that every start takes; from there on, static only.
  assert.match(
    readFileSync(resolve(dist, 'daemon/main.js'), 'utf8'),
    /await import\('\.\/server\.js'\)/,
  );
  const reached = [
    ...new Set([
      ...staticPackages(resolve(dist, 'daemon/main.js')),
      ...staticPackages(resolve(dist, 'daemon/server.js')),
    ]),
  ];
  assert.ok(reached.includes('hono'), 'the graph walk works');
  assert.deepEqual(
    reached.filter((p) => p.startsWith('@opentelemetry/')),
    [],
  );
  // The two doors: the SDK at start (only with an OTLP endpoint), the serializer at the first scrape.
  const start = readFileSync(resolve(dist, 'daemon/telemetry/start.js'), 'utf8');
  assert.match(start, /import\(['"]\.\/sdk\.js['"]\)/);
  assert.match(
    readFileSync(resolve(dist, 'daemon/telemetry/metrics-route.js'), 'utf8'),
    /import\(['"]\.\/prometheus\.js['"]\)/,
  );
});
