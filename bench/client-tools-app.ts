import { Agent, request } from 'node:http';
import { EventSource } from 'eventsource';

/**
 * The app side of the client-tools benchmark, in its own process: a provider
 * event stream, one registered tool, and for every request a claim and an
 * answer echoing the arguments. Argv: daemon url, operator token. Prints
 * `{"url":..., "clientId":...}` once registered.
 */

const [base, token] = process.argv.slice(2) as [string, string];
const auth = { authorization: `Bearer ${token}` };

// Keep-alive node:http for the answers: the global fetch costs several times more per small POST.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(path: string, body: unknown): Promise<void> {
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      new URL(path, base),
      {
        method: 'POST',
        agent,
        headers: {
          ...auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => {
          // A call its agent stopped waiting for (the load ending a run) is settled before its claim or result lands: expected, not reported.
          if (res.statusCode !== 200 && !/"code":"(unknown_request|already_settled)"/.test(text))
            process.stderr.write(`app: ${path} ${res.statusCode} ${text}\n`);
          resolve();
        });
      },
    );
    req.on('error', (err) => {
      process.stderr.write(`app: ${path} ${err.message}\n`);
      resolve();
    });
    req.end(payload);
  });
}

const es = new EventSource(new URL('/api/v1/events?client_tools=1', base), {
  fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), ...auth } }),
});
es.addEventListener('hello', (e) => {
  const clientId = (JSON.parse(e.data as string) as { data: { client_id: string } }).data.client_id;
  es.addEventListener('client_tool.request', (ev) => {
    const { request_id: id, arguments: args } = (
      JSON.parse(ev.data as string) as { data: { request_id: string; arguments?: unknown } }
    ).data;
    // Another app's requests reach this stream reduced to their id: not ours to serve.
    if (args === undefined) return;
    void (async () => {
      await post(`/api/v1/client-tools/requests/${id}/claim`, { client_id: clientId });
      await post(`/api/v1/client-tools/requests/${id}/result`, {
        client_id: clientId,
        ok: true,
        content: [{ type: 'text', text: JSON.stringify(args) }],
      });
    })();
  });
  void post('/api/v1/client-tools', {
    client_id: clientId,
    group: 'bench',
    tools: [
      {
        name: 'bench_echo',
        description: 'Echoes its arguments.',
        input_schema: { type: 'object', properties: { text: { type: 'string' } } },
        timeout_s: 30,
      },
    ],
  }).then(() => process.stdout.write(`${JSON.stringify({ url: base, clientId })}\n`));
});
es.onerror = (e) =>
  process.stderr.write(`app: event stream error ${(e as { message?: string }).message ?? ''}\n`);
