import { writeSync } from 'node:fs';
import type { ErrorBody } from '../../catalog/envelope.js';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { boundErrorBody } from '../../catalog/error-limits.js';
import { escapeJsonText } from '../json-text.js';
import { visibleBlock } from '../terminal-text.js';

/**
 * Writes straight to the file descriptor. Touching process.stdout on a pipe
 * (how runtimes capture a tool's output) builds a net.Socket and its stream
 * machinery, a few ms of start-up; a blocking write needs none of it. A
 * non-blocking descriptor that fills up falls back to the stream, which
 * node flushes before the process exits.
 */
export function writeOut(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buf.length) {
    try {
      offset += writeSync(fd, buf, offset);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return; // nobody reads any more
      if (code !== 'EAGAIN') throw err;
      (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(offset));
      return;
    }
  }
}

/** Data goes to stdout, one JSON document per line, inert on a terminal (cli/json-text.ts). */
export function printData(text: string): void {
  writeOut(1, `${escapeJsonText(text.endsWith('\n') ? text.slice(0, -1) : text)}\n`);
}

/** Messages for people go to stderr, prefixed with the command. */
export function printMessage(message: string): void {
  writeOut(2, `agentteam exec: ${visibleBlock(message, '')}\n`);
}

/** Prints a locally produced error envelope (within the envelope's size limits) and returns its exit status from the error table. */
export function printError(error: ErrorBody): number {
  printData(JSON.stringify({ ok: false, error: boundErrorBody(error) }));
  return ERROR_TABLE[error.code].exit;
}
