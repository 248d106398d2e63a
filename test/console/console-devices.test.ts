import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';
import { closeHttp } from '../../devkit/http.js';

/** The console's Devices page: pair (the code shown once), list, revoke; the revoked token is refused. */
test('the console pairs a device, lists it and revokes it', async (t) => {
  const d = await startDaemon();
  t.after(async () => {
    closeHttp();
    await d.close();
  });
  const con = await signIn(d);
  const page = await con.get('/console/devices');
  assert.equal(page.status, 200);
  assert.match(page.body, /No device is paired/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;

  const paired = await con.post('/console/devices/pair', {}, csrf);
  assert.equal(paired.status, 200, paired.body);
  const code = /data-pairing-code[^>]*>\s*<strong>([0-9A-Z-]+)<\/strong>/.exec(paired.body)?.[1];
  assert.ok(code, paired.body);
  const got = await fetch(new URL('/api/v1/devices/tokens', d.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, name: 'tablet' }),
  });
  assert.equal(got.status, 201);
  const { data } = (await got.json()) as { data: { token: string; device: { id: string } } };

  const listed = await con.get('/console/devices');
  assert.match(listed.body, new RegExp(`data-device="${data.device.id}"`));
  assert.match(listed.body, /tablet/);

  const revoked = await con.post(`/console/devices/${data.device.id}/revoke`, {}, csrf);
  assert.equal(revoked.status, 303, revoked.body);
  const after = await fetch(new URL('/api/v1/approvals/servers', d.url), {
    headers: { authorization: `Bearer ${data.token}` },
  });
  assert.equal(after.status, 403);
  assert.doesNotMatch((await con.get('/console/devices')).body, /tablet/);
});
