import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { cli, startDaemonCli, tempHome, type Result } from './daemon-harness.js';
import { rawRequest, type RawResponse } from './mcp-harness.js';

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
  cli(args: string[]): Promise<Result>;
  op(method: string, path: string, body?: unknown): Promise<RawResponse>;
  operatorToken(): string;
}

export interface HomeOptions {
  readonly env?: Record<string, string>;
  readonly profile?: unknown;
  /** file name -> JSON value (or raw text) written to $AGENTTEAM_HOME/tools/ */
  readonly tools?: Record<string, unknown>;
  readonly start?: boolean;
}

export async function prepareHome(t: TestContext, opts: HomeOptions = {}): Promise<Home> {
  const h = tempHome(t);
  const env = { ...h.env, ...opts.env };
  if (opts.profile !== undefined) writeFileSync(join(h.home, 'profile.json'), JSON.stringify(opts.profile));
  if (opts.tools) {
    mkdirSync(join(h.home, 'tools'), { recursive: true });
    for (const [name, v] of Object.entries(opts.tools)) writeFileSync(join(h.home, 'tools', name), typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  }
  let url = '';
  let pid = 0;
  if (opts.start !== false) ({ url, pid } = await startDaemonCli(env, h.track));
  const operatorToken = () => readFileSync(join(h.home, 'operator.token'), 'utf8').trim();
  return {
    home: h.home,
    env,
    url,
    pid,
    cli: (args) => cli(args, env),
    operatorToken,
    op: (method, path, body) => {
      const headers: Record<string, string> = { authorization: `Bearer ${operatorToken()}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return rawRequest(new URL(path, url).toString(), method, headers, body === undefined ? undefined : JSON.stringify(body));
    },
  };
}
