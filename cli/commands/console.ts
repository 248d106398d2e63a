import { resolveHome } from '../../lib/home.js';
import { daemonOperator } from '../daemon-client.js';
import { jsonText } from '../json-text.js';

/**
 * `agentteam console [--open]`: asks the running daemon (with the operator
 * token, which stays in this process) for a one-time sign-in code and prints
 * the console URL that carries it. With --open the URL is handed to the
 * desktop's opener (xdg-open on Linux, open on macOS) where one exists.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const res = await daemonOperator(home).send('console.code', {});
  const env = res.envelope;
  if (res.status !== 200 || !env.ok || !env.data) {
    process.stdout.write(`${jsonText(env)}\n`);
    return 1;
  }
  // The daemon names the console's own host (`<random>.localhost`), not the address in daemon.json.
  const url = env.data.url;
  process.stdout.write(`${url}\n`);
  process.stderr.write(`The link signs in once, until ${env.data.expiresAt}.\n`);
  if (opts.open) {
    const opener = await findOpener();
    if (!opener) {
      process.stderr.write(
        '--open: neither xdg-open nor open is on PATH; open the link yourself.\n',
      );
      return 0;
    }
    const { spawn } = await import('node:child_process');
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () =>
      process.stderr.write(`--open: ${opener} could not be started; open the link yourself.\n`),
    );
    child.unref();
  }
  return 0;
}

async function findOpener(): Promise<string | null> {
  const { existsSync } = await import('node:fs');
  const { join, delimiter } = await import('node:path');
  const names = process.platform === 'darwin' ? ['open'] : ['xdg-open'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const n of names) if (dir && existsSync(join(dir, n))) return join(dir, n);
  }
  return null;
}
