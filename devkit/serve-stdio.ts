import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Daemon } from './daemon.js';

/**
 * A test app that spawns the real built `agentteam serve --stdio` child (the
 * installed binary, dist/cli/agentteam.cjs) against a running daemon and
 * speaks JSON-RPC to it, one frame per line.
 */

export const CJS_BIN = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));

export interface StdioApp {
  readonly child: ChildProcess;
  /** Every frame the child wrote, in order. */
  readonly frames: any[];
  readonly stderr: () => string;
  /** Writes one frame (an object is serialized; a string/Buffer is written as is) and a LF. */
  send(frame: unknown): void;
  /** A request with a fresh id; resolves with the response frame. */
  request(method: string, params?: unknown, id?: string | number): Promise<any>;
  next(pred: (f: any) => boolean, ms?: number): Promise<any>;
  /** Waits for a client.tool.call frame (the first one not yet taken). */
  nextCall(ms?: number): Promise<any>;
  /** Answers a call frame by copying its identity. */
  answer(
    call: any,
    result: { status?: 'success' | 'error'; text?: string; structured?: unknown },
    extra?: Record<string, unknown>,
  ): Promise<any>;
  /** Initializes with client.tools and these descriptors; returns the response frame. */
  init(tools: unknown[], extra?: Record<string, unknown>): Promise<any>;
  /** Ends stdin; resolves with the exit code. */
  close(): Promise<number | null>;
  readonly exited: Promise<number | null>;
}

let seq = 0;

export function spawnServe(d: Daemon, args: string[] = []): StdioApp {
  const child = spawn(process.execPath, [CJS_BIN, 'serve', '--stdio', ...args], {
    env: { ...process.env, AGENTTEAM_HOME: d.home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const frames: any[] = [];
  const waiters: { pred: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  let buf = '';
  child.stdout!.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const f = JSON.parse(line);
      frames.push(f);
      for (const w of [...waiters])
        if (w.pred(f)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(f);
        }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const taken = new Set<any>();
  const next: StdioApp['next'] = (pred, ms = 5000) => {
    const seen = frames.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(
            new Error(
              `no matching frame within ${ms} ms; saw ${JSON.stringify(frames).slice(-800)}; stderr ${err}`,
            ),
          ),
        ms,
      );
      waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(t);
          resolve(f);
        },
      });
    });
  };
  const send: StdioApp['send'] = (frame) => {
    const body =
      typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
    child.stdin!.write(body);
    child.stdin!.write('\n');
  };
  const request: StdioApp['request'] = (method, params, id = `r${++seq}`) => {
    send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    return next((f) => f.id === id && !('method' in f));
  };
  const app: StdioApp = {
    child,
    frames,
    stderr: () => err,
    send,
    request,
    next,
    exited,
    nextCall: async (ms = 5000) => {
      const f = await next((x) => x.method === 'client.tool.call' && !taken.has(x), ms);
      taken.add(f);
      return f;
    },
    answer: (call, result, extra = {}) =>
      request('client.tool.result', {
        instance_id: call.params.instance_id,
        session_id: call.params.data.session_id,
        run_id: call.params.data.run_id,
        call_id: call.params.data.call_id,
        task_id: call.params.data.task_id,
        subagent_id: call.params.data.subagent_id,
        status: result.status ?? 'success',
        text: result.text ?? '',
        ...('structured' in result ? { structured: result.structured } : {}),
        ...extra,
      }),
    init: (tools, extra = {}) =>
      request('initialize', {
        required_capabilities: ['client.tools'],
        client_tools: tools,
        ...extra,
      }),
    close: async () => {
      child.stdin!.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
  return app;
}

export const lookupTool = (
  name = 'client__lookup_record',
  extra: Record<string, unknown> = {},
) => ({
  name,
  description: 'Look up a record by identifier.',
  input_schema: {
    type: 'object',
    properties: { record_id: { type: 'string' } },
    required: ['record_id'],
    additionalProperties: false,
  },
  ...extra,
});
