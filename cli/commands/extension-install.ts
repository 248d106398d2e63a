import { readFileSync } from 'node:fs';
import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/** `agentteam extension install FILE`: sends the file's exact text; the daemon checks it, stores it and its digest. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [file] = args;
  let text: string;
  try {
    text = readFileSync(file ?? '', 'utf8');
  } catch (err) {
    return usage(
      'extension install',
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return sendOperator(
    resolveHome(),
    'extensions.install',
    { body: { definition: text } },
    'extension install',
  );
}
