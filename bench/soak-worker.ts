import { Agent, request } from 'node:http';
import type { Runtime } from '../devkit/daemon.js';
import type { Mix } from './soak-mix.js';

/**
 * The soak's traffic: WORKERS workers, each a fixed rotation of Exec reads
 * and writes and MCP calls (messages, and the mix of soak-mix.ts) over
 * kept-alive connections, every tenth call on a fresh one, counting calls
 * and failures.
 */
export const WORKERS = 8;
const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export const keepAlive = new Agent({ keepAlive: true, maxSockets: WORKERS * 2 });

export function post(
  url: string,
  token: string,
  body: unknown,
  fresh: boolean,
): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: fresh ? false : keepAlive,
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${token}`,
          'content-length': String(Buffer.byteLength(text)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // counted as an error by the caller through the status or shape
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

export interface Counters {
  exec: number;
  mcp: number;
  mixed: Record<'client' | 'declared' | 'memory', number>;
  errors: number;
  lastError: string;
  leases: number;
  registrations?: number;
}

/** One worker: a fixed rotation of Exec reads and writes and MCP message calls. */
export async function worker(
  rt: Runtime,
  id: number,
  until: number,
  c: Counters,
  mix: Mix,
): Promise<void> {
  const base = rt.env.AGENTTEAM_EXEC_BASE_URL!;
  let taskId = '';
  for (let i = 0; Date.now() < until; i++) {
    const token = rt.token();
    const fresh = i % 10 === 0; // some calls on a new connection, as the CLI makes them
    const step = i % 12;
    let r: { status: number; json: any };
    if (step >= 8) {
      // 8: client tool, 9: declared tool, 10: memory search, 11: client tool again
      const m = mix.calls[step === 11 ? 0 : step - 8]!;
      r = await post(
        rt.mcpUrl,
        token,
        {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: m.tool, arguments: m.args(i) },
        },
        fresh,
      );
      c.mcp++;
      c.mixed[m.kind]++;
    } else if (step === 0 || !taskId) {
      r = await post(
        `${base}/task/create`,
        token,
        { title: `soak ${id}-${i}`, description: 'x'.repeat(200) },
        fresh,
      );
      if (r.status === 200) taskId = r.json.data.task.id;
      c.exec++;
    } else if (step === 1) {
      r = await post(
        `${base}/task/update`,
        token,
        { id: taskId, title: `soak ${id}-${i} updated` },
        fresh,
      );
      c.exec++;
    } else if (step <= 3) {
      r = await post(`${base}/task/get`, token, { id: taskId }, fresh);
      c.exec++;
    } else if (step === 4) {
      r = await post(`${base}/task/list`, token, { limit: 20 }, fresh);
      c.exec++;
    } else if (step === 5) {
      r = await post(
        rt.mcpUrl,
        token,
        {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'message_send',
            arguments: { target: `channel:soak${id % 3}`, content: `soak message ${i}` },
          },
        },
        fresh,
      );
      c.mcp++;
    } else {
      r = await post(
        rt.mcpUrl,
        token,
        {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'message_history_read',
            arguments: { target: `channel:soak${id % 3}`, limit: 20 },
          },
        },
        fresh,
      );
      c.mcp++;
    }
    const failed =
      r.status !== 200 ||
      r.json?.ok === false ||
      r.json?.error !== undefined ||
      r.json?.result?.isError === true;
    if (failed) {
      c.errors++;
      c.lastError = `${r.status} ${JSON.stringify(r.json).slice(0, 200)}`;
    }
  }
}
