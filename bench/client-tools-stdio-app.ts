import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The app side of the stdio benchmark, in its own process: it spawns the
 * installed binary as `agentteam serve --stdio`, negotiates client.tools with
 * one tool, and answers every client.tool.call at once with its arguments.
 * Argv: AGENTTEAM_HOME. Prints `{"url": "stdio", "pid": <child pid>}` once initialized.
 */

const BIN = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));
const [home] = process.argv.slice(2) as [string];
const child = spawn(process.execPath, [BIN, 'serve', '--stdio'], { env: { ...process.env, AGENTTEAM_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] });
let next = 0;
const send = (frame: unknown) => child.stdin.write(`${JSON.stringify(frame)}\n`);

let buf = '';
child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  buf += chunk;
  let i: number;
  while ((i = buf.indexOf('\n')) >= 0) {
    const f = JSON.parse(buf.slice(0, i)) as { id?: string | number; method?: string; params?: any; result?: any; error?: any };
    buf = buf.slice(i + 1);
    if (f.method === 'client.tool.call') {
      const { instance_id, data } = f.params;
      const { session_id, run_id, call_id, task_id, subagent_id } = data;
      send({ jsonrpc: '2.0', id: ++next, method: 'client.tool.result', params: { instance_id, session_id, run_id, call_id, task_id, subagent_id, status: 'success', text: JSON.stringify(data.arguments) } });
    } else if (f.id === 'init') {
      if (!f.result) throw new Error(`initialize failed: ${JSON.stringify(f)}`);
      process.stdout.write(`${JSON.stringify({ url: 'stdio', pid: child.pid })}\n`);
    } else if (f.error) {
      process.stderr.write(`stdio app: ${JSON.stringify(f.error)}\n`);
    }
  }
});
child.on('exit', (code) => process.exit(code ?? 1));
process.on('SIGTERM', () => child.stdin.end());
send({
  jsonrpc: '2.0', id: 'init', method: 'initialize',
  params: { required_capabilities: ['client.tools'], client_tools: [{ name: 'client__bench_echo', description: 'Echoes its arguments.', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }] },
});
