import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes a private file (0600, parent 0700) by rename, so a runtime never reads half a config. */
export function writePrivateFile(path: string, content: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(tmp, content, { mode, flag: 'wx' }); // a fresh name, never an existing file or link
  renameSync(tmp, path);
}

/** Single-quotes a path for a POSIX shell command line. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A headers helper: a script that prints `{"Authorization":"Bearer <token>"}`
 * from the token file each time it runs, so a runtime that calls it per
 * connection always sends the current generation. Claude Code runs it
 * through a shell, Codex runs it as a program; a script with a shebang suits
 * both. It fails (exit 1, nothing on stdout) rather than send an empty bearer.
 */
export function writeHeadersHelper(path: string, tokenFile: string): void {
  writePrivateFile(
    path,
    [
      '#!/bin/sh',
      '# Prints the Authorization header for the agentteam MCP server from the current token file.',
      `token=$(cat ${shQuote(tokenFile)}) || exit 1`,
      '[ -n "$token" ] || exit 1',
      'printf \'{"Authorization":"Bearer %s"}\\n\' "$token"',
      '',
    ].join('\n'),
    0o700,
  );
}

/**
 * A PATH shim for a wrapped command (`sh -c '... claude ...'`): drops its own
 * directory from PATH (so the real program is found, and a nested agentteam
 * run does not wrap twice), then runs the `tail` lines, the last an `exec`.
 */
export function renderPathShim(shimDir: string, purpose: string, tail: readonly string[]): string {
  return [
    '#!/bin/sh',
    `# Written by agentteam: ${purpose}`,
    `shim_dir=${shQuote(shimDir)}`,
    'set -f',
    'rest=',
    'IFS=:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    'for p in $PATH; do [ "$p" = "$shim_dir" ] || rest="${rest:+$rest:}$p"; done',
    'unset IFS',
    'set +f',
    'PATH=$rest',
    'export PATH',
    ...tail,
    '',
  ].join('\n');
}
