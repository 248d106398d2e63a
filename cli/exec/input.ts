import { readFileSync } from 'node:fs';
import type { ErrorBody } from '../../catalog/envelope.js';

export type ParsedInput = { readonly ok: true; readonly value: unknown; readonly text: string } | { readonly ok: false; readonly error: ErrorBody };

async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (err) {
    // A non-blocking stdin (inherited from some parents) cannot be read synchronously.
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * The input argument: one inline JSON value, `-` for stdin, or nothing (taken
 * as `{}`; the validator then names any required field). The original text is
 * kept and sent as is, so the daemon's strict decoder sees what the caller wrote.
 */
export async function readInput(arg: string | undefined): Promise<ParsedInput> {
  const text = arg === undefined ? '{}' : arg === '-' ? await readStdin() : arg;
  const source = arg === '-' ? 'stdin' : 'the input argument';
  if (text.trim() === '') {
    return { ok: false, error: { code: 'invalid_json', message: `${source} is empty; expected one JSON value` } };
  }
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch (err) {
    return { ok: false, error: { code: 'invalid_json', message: `${source} is not valid JSON: ${(err as Error).message}` } };
  }
}
