import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { EventSource } from 'eventsource';
import { operatorCall } from '../devkit/http.js';
import type { Daemon } from '../devkit/daemon.js';
import { startLineServer } from './procs.js';

/**
 * What the soak mixes in beside Exec and message traffic: a client tool
 * served by an app in its own process (bench/client-tools-app.ts, the
 * `bench_echo` tool), a declared command tool (`soak_cat`, /bin/cat echoing
 * its call), memory_search over a few hundred notes per agent, and an app
 * that re-registers a group of fresh tool names every few seconds (so the
 * remembered names churn past their bound).
 */

const APP = fileURLToPath(new URL('./client-tools-app.js', import.meta.url));
const CAT = '/bin/cat';
const NOTES = 300;
const WORDS = [
  'alpha',
  'budget',
  'cursor',
  'daemon',
  'engine',
  'filter',
  'gamma',
  'harbor',
  'index',
  'journal',
  'kernel',
  'ledger',
];

export interface Mix {
  /** MCP tools/call bodies for the three mixed-in kinds, by kind. */
  readonly calls: {
    readonly kind: 'client' | 'declared' | 'memory';
    readonly tool: string;
    args(i: number): Record<string, unknown>;
  }[];
  /** Registrations of fresh names made so far. */
  registrations(): number;
  stop(): Promise<void>;
}

function writeNotes(home: string, agent: string): void {
  const dir = join(home, 'memory', agent);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < NOTES; i++) {
    const lines = Array.from(
      { length: 40 },
      (_, l) =>
        `${WORDS[(i + l) % WORDS.length]} note ${i} line ${l} ${WORDS[(i * 7 + l) % WORDS.length]}`,
    );
    writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\n${lines.join('\n')}\n`);
  }
}

/** Starts the app, declares the tool, writes the notes. `agents`: the agents whose memory folders get notes. */
export async function startMix(daemon: Daemon, agents: readonly string[]): Promise<Mix> {
  if (!existsSync(CAT)) throw new Error(`the soak's declared tool needs ${CAT}`);
  for (const a of agents) writeNotes(daemon.home, a);
  mkdirSync(join(daemon.home, 'tools'), { recursive: true });
  writeFileSync(
    join(daemon.home, 'tools', 'soak-cat.json'),
    JSON.stringify({
      name: 'soak_cat',
      description: 'Echoes its call (the soak benchmark).',
      needs: {
        type: 'object',
        additionalProperties: false,
        properties: { text: { type: 'string', maxLength: 200 } },
      },
      annotations: { readOnlyHint: true },
      transport: { type: 'command', argv: [CAT], timeoutMs: 10_000, outputBytes: 4096 },
    }),
  );
  const reload = await daemon.cli(['daemon', 'reload']);
  if (reload.code !== 0) throw new Error(`daemon reload failed: ${reload.stderr}`);
  const token = readFileSync(join(daemon.home, 'operator.token'), 'utf8').trim();
  const app: { url: string; proc: ChildProcess } = await startLineServer(APP, 'client tools app', [
    daemon.url,
    token,
  ]);

  // The churning app: a provider stream of its own, a group of 8 fresh names every 5 s.
  let registrations = 0;
  let churnTimer: NodeJS.Timeout | null = null;
  const es = new EventSource(new URL('/api/v1/events?client_tools=1', daemon.url), {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers ?? {}), authorization: `Bearer ${token}` },
      }),
  });
  await new Promise<void>((resolve, reject) => {
    es.onerror = () => reject(new Error('the churning app could not open its event stream'));
    es.addEventListener('hello', (e) => {
      es.onerror = null;
      const clientId = (JSON.parse(e.data as string) as { data: { client_id: string } }).data
        .client_id;
      const register = async () => {
        const round = registrations++;
        const tools = Array.from({ length: 8 }, (_, i) => ({
          name: `churn_${round}_${i}`,
          description: 'A tool that only comes and goes.',
          input_schema: { type: 'object' },
          timeout_s: 5,
        }));
        const r = await operatorCall(daemon, 'POST', '/api/v1/client-tools', {
          client_id: clientId,
          group: 'churn',
          tools,
        });
        if (r.status !== 200)
          process.stderr.write(`soak: churn registration ${r.status} ${r.body.slice(0, 200)}\n`);
        churnTimer = setTimeout(() => void register(), 5_000);
      };
      void register().then(resolve, reject);
    });
  });
  return {
    calls: [
      { kind: 'client', tool: 'bench_echo', args: (i) => ({ text: `soak ${i}` }) },
      { kind: 'declared', tool: 'soak_cat', args: (i) => ({ text: `soak ${i}` }) },
      {
        kind: 'memory',
        tool: 'memory_search',
        args: (i) => ({
          query: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}`,
          limit: 5,
        }),
      },
    ],
    registrations: () => registrations,
    async stop() {
      if (churnTimer) clearTimeout(churnTimer);
      es.close();
      app.proc.kill('SIGTERM');
      await new Promise((r) => app.proc.once('exit', r).once('error', r));
    },
  };
}
