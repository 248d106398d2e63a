import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Repository root (this file runs from dist/interop/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Clients are installed here, outside node_modules (gitignored), once per pinned version. */
export const CACHE = join(ROOT, '.interop-cache');

export interface NpmClient {
  readonly id: string;
  readonly pkg: string;
  readonly version: string;
  readonly bin: string;
}

/** The pinned real clients. Raising a pin reinstalls that one client on the next run. */
export const NPM_CLIENTS: readonly NpmClient[] = [
  { id: 'claude', pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  { id: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  { id: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  { id: 'inspector', pkg: '@modelcontextprotocol/inspector', version: '2.12.0', bin: 'mcp-inspector' },
  { id: 'mcp-remote', pkg: 'mcp-remote', version: '0.15.1', bin: 'mcp-remote' },
];
export const PYTHON_SDK = { pkg: 'mcp', version: '2.3.0' } as const;

export type Installed = { ok: true; bin: string; dir: string } | { ok: false; reason: string };

function nodeTooOld(range: string | undefined): string | null {
  const m = /^>=\s*(\d+)\.(\d+)\.(\d+)/.exec(range ?? '');
  if (!m) return null;
  const want = [Number(m[1]), Number(m[2]), Number(m[3])];
  const have = process.versions.node.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i]! > want[i]!) return null;
    if (have[i]! < want[i]!) return `needs Node ${range}, this is v${process.versions.node}`;
  }
  return null;
}

/** True when the executable is a script for `node` (not a native binary). */
function runsOnNode(bin: string): boolean {
  const fd = openSync(realpathSync(bin), 'r');
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, 64, 0);
    return /^#!.*\bnode\b/.test(head.subarray(0, n).toString('latin1').split('\n')[0] ?? '');
  } finally {
    closeSync(fd);
  }
}

/** Installs one npm client into its own prefix (if not there yet) and checks its Node engine range. */
export async function ensureNpm(c: NpmClient): Promise<Installed> {
  const prefix = join(CACHE, 'npm', c.id);
  const manifest = join(prefix, 'node_modules', c.pkg, 'package.json');
  const current = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : null;
  if (current !== c.version) {
    mkdirSync(prefix, { recursive: true });
    try {
      await exec('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${c.pkg}@${c.version}`], { timeout: 600_000 });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      return { ok: false, reason: `npm could not install ${c.pkg}@${c.version}: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' / ')}` };
    }
  }
  const bin = join(prefix, 'node_modules', '.bin', c.bin);
  if (!existsSync(bin)) return { ok: false, reason: `${c.pkg}@${c.version} installed no ${c.bin} executable` };
  // The engine range matters only when this Node runs the executable; some packages ship a native binary.
  if (runsOnNode(bin)) {
    const engines = (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } }).engines;
    const old = nodeTooOld(engines?.node);
    if (old) return { ok: false, reason: old };
  }
  return { ok: true, bin, dir: join(prefix, 'node_modules', '.bin') };
}

/** Installs the Python SDK with pip --target (no virtualenv needed); returns the PYTHONPATH. */
export async function ensurePython(): Promise<Installed> {
  const target = join(CACHE, 'python');
  const marker = join(target, `${PYTHON_SDK.pkg}-${PYTHON_SDK.version}.dist-info`);
  try {
    await exec('python3', ['--version'], { timeout: 10_000 });
  } catch {
    return { ok: false, reason: 'no python3 on PATH' };
  }
  if (!existsSync(marker)) {
    try {
      await exec('python3', ['-m', 'pip', 'install', '--quiet', '--upgrade', '--target', target, `${PYTHON_SDK.pkg}==${PYTHON_SDK.version}`], { timeout: 600_000 });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      return { ok: false, reason: `pip could not install ${PYTHON_SDK.pkg}==${PYTHON_SDK.version}: ${(e.stderr || e.message).trim().split('\n').slice(-2).join(' / ')}` };
    }
  }
  return { ok: true, bin: 'python3', dir: target };
}
