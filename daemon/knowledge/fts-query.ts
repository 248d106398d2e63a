import { ExecError } from '../errors/exec-error.js';

/**
 * Turns what a model typed into an FTS5 MATCH expression it cannot break:
 * every word or "quoted phrase" becomes a quoted string (operators and
 * column filters are never interpreted), a trailing * keeps prefix search,
 * and all terms must occur (implicit AND).
 */
export function toMatchExpression(query: string): string {
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (const m of query.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? '';
    const prefix = m[2] !== undefined && raw.endsWith('*');
    const words = raw.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu);
    if (!words) continue;
    const phrase = `"${words.join(' ')}"`;
    terms.push(prefix ? `${phrase}*` : phrase);
    if (terms.length > 32) break;
  }
  if (terms.length === 0) {
    throw new ExecError('validation_failed', 'the query has no words to search for', {
      details: [{ path: '/query', message: 'give at least one word of letters or digits' }],
    });
  }
  return terms.join(' ');
}
