import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';

/**
 * `mcp.protocol.version` labels metrics with the revision a client speaks.
 * The label set used to be "the first 16 date-shaped values seen", so
 * sixteen made-up versions filled it and every real client was labelled
 * `_other` until the daemon restarted. Only the revisions the daemon serves
 * are labels; anything else is `_other`, always.
 */
const SERVED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

test('made-up protocol versions are all _other; a served version keeps its label after any number of them', async (t) => {
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
  const d = await startDaemon();
  t.after(() => d.close());
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  // Where a client names its revision without being refused first: initialize's params, and a 2026 request's _meta.
  for (let i = 1; i <= 20; i++) {
    const junk = `2099-01-${String(i).padStart(2, '0')}`;
    const params =
      i % 2
        ? { protocolVersion: junk, capabilities: {}, clientInfo: { name: 'x', version: '1' } }
        : { _meta: { 'io.modelcontextprotocol/protocolVersion': junk } };
    await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: i,
      method: i % 2 ? 'initialize' : 'tools/list',
      params,
    });
  }
  const real = await rpc(
    lease.mcpUrl,
    lease.token(),
    { jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} },
    { 'mcp-protocol-version': '2025-06-18' },
  );
  assert.equal(real.status, 200, real.body);

  const op = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const res = await rawRequest(new URL('/metrics', d.url).toString(), 'GET', {
    authorization: `Bearer ${op}`,
  });
  assert.equal(res.status, 200, res.body);
  const durations = res.body
    .split('\n')
    .filter((l) => l.startsWith('mcp_server_operation_duration_count{'));
  const labels = new Set(
    durations
      .map((l) => /mcp_protocol_version="([^"]*)"/.exec(l)?.[1])
      .filter((v) => v !== undefined),
  );
  assert.ok(labels.has('2025-06-18'), `the real client keeps its label: ${durations.join('\n')}`);
  assert.ok(labels.has('_other'), 'the made-up versions are counted as _other');
  for (const v of labels)
    assert.ok(v === '_other' || SERVED.includes(v!), `no made-up label: ${v}`);
});
