import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/**
 * `$AGENTTEAM_HOME/state/client-tools.json`: the names of client tools apps
 * registered with this home, oldest first. It keeps a profile's denyTools
 * entries valid at boot, before the app reconnects, and tells whether the
 * fallback tools (app_tools, app_call) are listed. The set is bounded
 * (`REMEMBERED` in remembered.ts).
 */
interface ClientToolsState {
  readonly version: 1;
  readonly names: string[];
}

export const clientToolsStatePath = (home: string) => join(home, 'state', 'client-tools.json');

/** The remembered names, oldest first; an absent or unreadable file counts as none (and is reported). */
export function readClientToolsState(path: string, log: (m: string) => void): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      log(`client tools: cannot read ${path}: ${(err as Error).message}`);
    return [];
  }
  try {
    const doc = JSON.parse(text) as Partial<ClientToolsState>;
    if (
      doc.version !== 1 ||
      !Array.isArray(doc.names) ||
      !doc.names.every((n) => typeof n === 'string')
    )
      throw new Error('unexpected shape');
    return doc.names;
  } catch (err) {
    log(
      `client tools: ${path} is invalid (${(err as Error).message}); starting with no remembered names`,
    );
    return [];
  }
}

/** The file's exact text for these names (one name a line). */
export function clientToolsStateText(names: readonly string[]): string {
  const doc: ClientToolsState = { version: 1, names: [...names] };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const tmpOf = (path: string) => `${path}.${randomBytes(6).toString('hex')}.tmp`;

/** Written beside and renamed into place, owner-only (the synchronous form, for a clean stop). */
export function writeClientToolsState(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = tmpOf(path);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * The same off the event loop: the bytes go out on the thread pool. `commit`
 * is asked just before the rename; when it says no (a newer synchronous write
 * happened meanwhile), the temp file is removed and the file left alone.
 */
export async function writeClientToolsStateAsync(
  path: string,
  text: string,
  commit: () => boolean,
): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = tmpOf(path);
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    if (commit()) renameSync(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
}
