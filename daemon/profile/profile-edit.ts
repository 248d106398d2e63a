import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ExecError } from '../errors/exec-error.js';
import { parseProfile } from './parse.js';
import type { ProfileStore } from './profile-store.js';

/** The raw profile document: edits keep every field they do not touch (headers, policy, source ids). */
export interface RawProfile {
  agents?: Record<string, unknown>[];
  teams?: Record<string, unknown>[];
  [key: string]: unknown;
}

function readRaw(path: string): RawProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ExecError('unavailable', 'the profile cannot be read');
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new Error('not an object');
    return doc as RawProfile;
  } catch {
    throw new ExecError(
      'unavailable',
      'profile.json is not valid JSON; fix it before editing agents through the daemon',
    );
  }
}

/** Temp file in the same directory, fsync, rename over, fsync the directory: a reader sees the old or the new file, whole. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * One profile edit: check the expected revision, apply `edit` to the raw
 * document, validate the result as the daemon would load it, write it
 * atomically and reload (which bumps the collection revision). Synchronous
 * from read to reload, so two edits in one daemon never interleave.
 */
export function editProfile(
  store: ProfileStore,
  expectedRevision: string | undefined,
  edit: (doc: RawProfile) => void,
): string {
  if (expectedRevision !== undefined && expectedRevision !== store.revision) {
    throw new ExecError(
      'revision_conflict',
      `the profile is at revision ${store.revision}, not ${expectedRevision}`,
      {
        hint: 'Read the current revision with profile get and decide again.',
      },
    );
  }
  const doc = readRaw(store.path);
  edit(doc);
  try {
    parseProfile(doc);
  } catch (err) {
    throw new ExecError(
      'validation_failed',
      `the edited profile would be invalid: ${(err as Error).message}`,
    );
  }
  writeFileAtomic(store.path, `${JSON.stringify(doc, null, 2)}\n`);
  const reloaded = store.reload();
  if (!reloaded.ok)
    throw new ExecError('internal', 'the profile was written but could not be reloaded');
  return reloaded.revision;
}
