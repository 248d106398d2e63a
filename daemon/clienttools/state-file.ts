import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/**
 * `$AGENTTEAM_HOME/state/client-tools.json`: the names of every client tool
 * an app ever registered with this home. It keeps a profile's denyTools
 * entries valid at boot, before the app reconnects, and tells whether the
 * fallback tools (app_tools, app_call) are listed.
 */
export interface ClientToolsState {
  readonly version: 1;
  readonly names: string[];
}

export const clientToolsStatePath = (home: string) => join(home, 'state', 'client-tools.json');

/** The remembered names; an absent or unreadable file counts as none (and is reported). */
export function readClientToolsState(path: string, log: (m: string) => void): Set<string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`client tools: cannot read ${path}: ${(err as Error).message}`);
    return new Set();
  }
  try {
    const doc = JSON.parse(text) as Partial<ClientToolsState>;
    if (doc.version !== 1 || !Array.isArray(doc.names) || !doc.names.every((n) => typeof n === 'string')) throw new Error('unexpected shape');
    return new Set(doc.names);
  } catch (err) {
    log(`client tools: ${path} is invalid (${(err as Error).message}); starting with no remembered names`);
    return new Set();
  }
}

/** Written beside and renamed into place, owner-only. */
export function writeClientToolsState(path: string, names: ReadonlySet<string>): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const doc: ClientToolsState = { version: 1, names: [...names].sort() };
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, path);
}
