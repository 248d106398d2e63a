import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { cliEnv, startDaemonCli, tempHome } from './daemon.js';
import type { RunResult } from './cli.js';
import { rawRequest, type RawResponse } from './http.js';
import { operatorOf } from './operator.js';

/**
 * A real daemon (started with the built CLI) in a temp home prepared first:
 * extra environment for the daemon, a profile.json, declaration files in
 * tools/. Everything is removed and killed after the test.
 */
export interface Home {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly url: string;
  readonly pid: number;
  cli(args: string[]): Promise<RunResult>;
  op(method: string, path: string, body?: unknown): Promise<RawResponse>;
  operatorToken(): string;
}

export interface HomeOptions {
  readonly env?: Record<string, string>;
  readonly profile?: unknown;
  /** file name -> JSON value (or raw text) written to $AGENTTEAM_HOME/tools/ */
  readonly tools?: Record<string, unknown>;
  readonly start?: boolean;
  /** Copy examples/tools/ into tools/ before the daemon starts. */
  readonly examples?: boolean;
  /** Anything else to write into the home before the daemon starts. */
  readonly setup?: (home: string) => void;
}

export async function prepareHome(t: TestContext, opts: HomeOptions = {}): Promise<Home> {
  const h = tempHome(t);
  const env = { ...h.env, ...opts.env };
  if (opts.profile !== undefined)
    writeFileSync(join(h.home, 'profile.json'), JSON.stringify(opts.profile));
  if (opts.tools) {
    mkdirSync(join(h.home, 'tools'), { recursive: true });
    for (const [name, v] of Object.entries(opts.tools))
      writeFileSync(
        join(h.home, 'tools', name),
        typeof v === 'string' ? v : JSON.stringify(v, null, 2),
      );
  }
  if (opts.examples) installExamples(h.home);
  opts.setup?.(h.home);
  let url = '';
  let pid = 0;
  if (opts.start !== false) ({ url, pid } = await startDaemonCli(env, h.track));
  const operatorToken = () => readFileSync(join(h.home, 'operator.token'), 'utf8').trim();
  return {
    home: h.home,
    env,
    url,
    pid,
    cli: (args) => cliEnv(args, env),
    operatorToken,
    op: (method, path, body) => {
      const headers: Record<string, string> = { authorization: `Bearer ${operatorToken()}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return rawRequest(
        new URL(path, url).toString(),
        method,
        headers,
        body === undefined ? undefined : JSON.stringify(body),
      );
    },
  };
}

export interface EventFrame {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, any>;
}

/** The operator event stream, read by the one typed client (lib/operator-client.ts), collecting the named event types. */
export async function watchEvents(
  h: Home,
  types: readonly string[],
): Promise<{
  frames: EventFrame[];
  next(pred: (f: EventFrame) => boolean, ms?: number): Promise<EventFrame>;
  close(): void;
}> {
  const frames: EventFrame[] = [];
  const events = operatorOf(h).events('events.open', { query: {} });
  let failed: unknown = null;
  void (async () => {
    try {
      for await (const e of events)
        if (e.type === 'hello' || types.includes(e.type)) frames.push(e as EventFrame);
    } catch (err) {
      failed = err;
    }
  })();
  const next = async (pred: (f: EventFrame) => boolean, ms = 5000): Promise<EventFrame> => {
    const until = Date.now() + ms;
    for (;;) {
      const f = frames.find(pred);
      if (f) return f;
      if (failed !== null || Date.now() > until)
        throw new Error(
          `no matching event within ${ms} ms (${String(failed ?? 'still open')}); saw ${JSON.stringify(frames.map((x) => x.type))}`,
        );
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await next((f) => f.type === 'hello');
  return { frames, next, close: () => events.close() };
}

/** Copies examples/tools/ (modes kept) into $AGENTTEAM_HOME/tools/. */
export function installExamples(home: string): void {
  const src = fileURLToPath(new URL('../../examples/tools/', import.meta.url));
  mkdirSync(join(home, 'tools'), { recursive: true });
  for (const n of readdirSync(src)) copyFileSync(join(src, n), join(home, 'tools', n));
  for (const n of readdirSync(src))
    chmodSync(join(home, 'tools', n), statSync(join(src, n)).mode & 0o777);
}
