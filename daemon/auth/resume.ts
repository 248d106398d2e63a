import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sameSecret } from '../../lib/same-secret.js';
import { ExecError } from '../errors/exec-error.js';
import type { AuthorizationInit } from './authorization.js';

/**
 * The proof a re-lease needs after a daemon restart. Each lease gets a
 * random resume secret, handed only to the `run` process that opened it
 * (which keeps it in memory); its private directory is named by a hash of
 * that secret. So the hash is stored as the directory's name, which
 * outlives any daemon, and a later daemon can check a claim on a directory
 * without keeping any record: holding the operator token is not enough to
 * take over a runtime's token file path.
 */

export function newResumeSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** 32 hex characters (128 bits of SHA-256), the shape every runtime directory name has. */
function resumeDirName(secret: string): string {
  return createHash('sha256')
    .update('agentteam-resume\u0000')
    .update(secret)
    .digest('hex')
    .slice(0, 32);
}

/** Whether `secret` is the one `dir` was named after (compared in constant time). */
function provesDir(dir: string, secret: unknown): boolean {
  return typeof secret === 'string' && secret.length > 0 && sameSecret(dir, resumeDirName(secret));
}

/**
 * The directory a fresh secret names, or the one a re-lease asks for: it
 * must have the same shape, the re-lease must hold the secret it was named
 * after (the operator token alone does not do), and no record of this
 * daemon (`held`: live or still being cleaned up) and no entry on disk may
 * hold it. The directory is only ever made with a plain mkdir, so it is
 * never someone else's.
 */
export function runtimeDirName(
  runtimeDir: string,
  resume: AuthorizationInit['resume'],
  secret: string,
  held: (dir: string) => boolean,
): string {
  if (resume === undefined) return resumeDirName(secret);
  const wanted = resume.dir;
  if (!/^[0-9a-f]{32}$/.test(wanted))
    throw new ExecError(
      'invalid_request',
      'resumeDir must be the 32 hex characters naming a runtime directory',
    );
  if (!provesDir(wanted, resume.secret))
    throw new ExecError(
      'forbidden',
      'resumeSecret does not match resumeDir: only the run that held the runtime may renew it',
    );
  const dir = join(runtimeDir, wanted);
  if (held(dir) || existsSync(dir))
    throw new ExecError(
      'already_exists',
      `the runtime directory ${wanted} is in use by another authorization`,
    );
  return wanted;
}
