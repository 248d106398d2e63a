import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/**
 * The app side of the stdio benchmark, in its own process: it spawns the
 * installed binary as `agentteam serve --stdio`, negotiates client.tools with
 * one tool, and answers every client.tool.call at once with its arguments.
 * Argv: AGENTTEAM_HOME. Prints `{"url": "stdio", "pid": <child pid>}` once initialized.
 *
 * A child accepts 4096 request ids in its life, and every answer is a
 * request, so like any app that serves more calls than that it replaces its
 * child when the ids run out: the old one is closed (the daemon withdraws its
 * tools) and a new one registers them again. Calls that reach the old child
 * after its last id are not answered (they end when it exits); their number
 * is printed to stderr at the end.
 */

const BIN = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));
/** Seed 000's bound on the request ids one child accepts. */
const LIFETIME_IDS = 4096;
const [home] = process.argv.slice(2) as [string];
let child: ChildProcessByStdio<Writable, Readable, null>;
let used = 0;
let dropped = 0;
let children = 0;
let stopping = false;

function start(): void {
  const c = spawn(process.execPath, [BIN, 'serve', '--stdio'], {
    env: { ...process.env, AGENTTEAM_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child = c;
  children++;
  used = 1; // the initialize request
  const send = (frame: unknown) => c.stdin.write(`${JSON.stringify(frame)}\n`);
  let buf = '';
  c.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const f = JSON.parse(buf.slice(0, i)) as {
        id?: string | number;
        method?: string;
        params?: any;
        result?: any;
        error?: any;
      };
      buf = buf.slice(i + 1);
      if (f.method === 'client.tool.call') {
        if (c !== child || used >= LIFETIME_IDS) {
          dropped++;
          continue;
        }
        const { instance_id, data } = f.params;
        const { session_id, run_id, call_id, task_id, subagent_id } = data;
        send({
          jsonrpc: '2.0',
          id: ++used,
          method: 'client.tool.result',
          params: {
            instance_id,
            session_id,
            run_id,
            call_id,
            task_id,
            subagent_id,
            status: 'success',
            text: JSON.stringify(data.arguments),
          },
        });
        if (used >= LIFETIME_IDS) c.stdin.end(); // its last answer is written; the exit handler starts the next child
      } else if (f.id === 'init') {
        if (!f.result) throw new Error(`initialize failed: ${JSON.stringify(f)}`);
        if (children === 1)
          process.stdout.write(`${JSON.stringify({ url: 'stdio', pid: c.pid })}\n`);
      } else if (f.error) {
        process.stderr.write(`stdio app: ${JSON.stringify(f.error)}\n`);
      }
    }
  });
  c.on('exit', (code) => {
    if (stopping) {
      process.stderr.write(
        `stdio app: ${children} children, ${dropped} calls left unanswered at a child's end\n`,
      );
      process.exit(code ?? 0);
    }
    if (used >= LIFETIME_IDS) start();
    else process.exit(code ?? 1);
  });
  send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: {
      required_capabilities: ['client.tools'],
      client_tools: [
        {
          name: 'client__bench_echo',
          description: 'Echoes its arguments.',
          input_schema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ],
    },
  });
}

process.on('SIGTERM', () => {
  stopping = true;
  child.stdin.end();
});
start();
