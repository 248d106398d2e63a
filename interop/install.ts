import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
} from 'node:fs';
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
  /** A Node range the package needs but does not declare in `engines` (it then runs on the spare Node). */
  readonly nodeRange?: string;
}

/** The pinned real clients. Raising a pin reinstalls that one client on the next run. */
export const NPM_CLIENTS: readonly NpmClient[] = [
  { id: 'claude', pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  { id: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  { id: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  {
    id: 'inspector',
    pkg: '@modelcontextprotocol/inspector',
    version: '2.12.0',
    bin: 'mcp-inspector',
  },
  { id: 'mcp-remote', pkg: 'mcp-remote', version: '0.15.1', bin: 'mcp-remote' },
  // Uses fs.globSync (Node 22) without saying so in `engines`.
  {
    id: 'conformance',
    pkg: '@modelcontextprotocol/conformance',
    version: '0.1.16',
    bin: 'conformance',
    nodeRange: '>=22.0.0',
  },
];
export const PYTHON_SDK = { pkg: 'mcp', version: '2.3.0' } as const;

/** `dir` holds the executables; `nodeDir`, when set, holds the Node that must come first on PATH to run them. */
export type Installed =
  | { ok: true; bin: string; dir: string; nodeDir?: string; note?: string }
  | { ok: false; reason: string };

/**
 * The Node used for a client whose engine range this Node does not meet: the
 * official binary as published on npm (`node` package), pinned like the clients.
 */
export const SPARE_NODE = { pkg: 'node', version: '22.23.3' } as const;

async function spareNode(): Promise<{ dir: string } | { reason: string }> {
  const prefix = join(CACHE, `node-${SPARE_NODE.version}`);
  const bin = join(prefix, 'node_modules', '.bin', 'node');
  if (!existsSync(bin)) {
    try {
      await exec(
        'npm',
        [
          'install',
          '--prefix',
          prefix,
          '--no-audit',
          '--no-fund',
          '--no-save',
          `${SPARE_NODE.pkg}@${SPARE_NODE.version}`,
        ],
        { timeout: 600_000 },
      );
    } catch (err) {
      return {
        reason: `npm could not install node@${SPARE_NODE.version}: ${(err as Error).message.split('\n')[0]}`,
      };
    }
  }
  try {
    const { stdout } = await exec(bin, ['--version'], { timeout: 30_000 });
    if (stdout.trim() !== `v${SPARE_NODE.version}`)
      return { reason: `node@${SPARE_NODE.version} from npm reports ${stdout.trim()}` };
  } catch (err) {
    return {
      reason: `node@${SPARE_NODE.version} from npm does not run here: ${(err as Error).message.split('\n')[0]}`,
    };
  }
  return { dir: join(prefix, 'node_modules', '.bin') };
}

/** A reason when `version` is below a `>=x.y.z` range (other range forms are not checked). */
function nodeTooOldFor(range: string | undefined, version: string): string | null {
  const m = /^>=\s*(\d+)\.(\d+)\.(\d+)/.exec(range ?? '');
  if (!m) return null;
  const want = [Number(m[1]), Number(m[2]), Number(m[3])];
  const have = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i]! > want[i]!) return null;
    if (have[i]! < want[i]!) return `needs Node ${range}, this is v${version}`;
  }
  return null;
}

function nodeTooOld(range: string | undefined): string | null {
  return nodeTooOldFor(range, process.versions.node);
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
  const current = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    : null;
  if (current !== c.version) {
    mkdirSync(prefix, { recursive: true });
    try {
      await exec(
        'npm',
        [
          'install',
          '--prefix',
          prefix,
          '--no-audit',
          '--no-fund',
          '--no-save',
          `${c.pkg}@${c.version}`,
        ],
        { timeout: 600_000 },
      );
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      return {
        ok: false,
        reason: `npm could not install ${c.pkg}@${c.version}: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' / ')}`,
      };
    }
  }
  const bin = join(prefix, 'node_modules', '.bin', c.bin);
  if (!existsSync(bin))
    return { ok: false, reason: `${c.pkg}@${c.version} installed no ${c.bin} executable` };
  // The engine range matters only when this Node runs the executable; some packages ship a native binary.
  const dir = join(prefix, 'node_modules', '.bin');
  if (runsOnNode(bin)) {
    const range =
      (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } }).engines
        ?.node ?? c.nodeRange;
    const old = nodeTooOld(range);
    if (old) {
      // Run it on a Node that meets its range rather than skip it; skip only when that Node is unavailable.
      const spare = await spareNode();
      if ('reason' in spare) return { ok: false, reason: `${old}; ${spare.reason}` };
      const spareOld = nodeTooOldFor(range, SPARE_NODE.version);
      if (spareOld)
        return {
          ok: false,
          reason: `${old}, and the spare Node ${SPARE_NODE.version} does not meet it either`,
        };
      return {
        ok: true,
        bin,
        dir,
        nodeDir: spare.dir,
        note: `on Node ${SPARE_NODE.version} from npm (its range is ${range}; this Node is v${process.versions.node})`,
      };
    }
  }
  return { ok: true, bin, dir };
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
      await exec(
        'python3',
        [
          '-m',
          'pip',
          'install',
          '--quiet',
          '--upgrade',
          '--target',
          target,
          `${PYTHON_SDK.pkg}==${PYTHON_SDK.version}`,
        ],
        { timeout: 600_000 },
      );
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      return {
        ok: false,
        reason: `pip could not install ${PYTHON_SDK.pkg}==${PYTHON_SDK.version}: ${(e.stderr || e.message).trim().split('\n').slice(-2).join(' / ')}`,
      };
    }
  }
  return { ok: true, bin: 'python3', dir: target };
}
