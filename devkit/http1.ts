import { ResponseReader, type Http1Response } from '../cli/exec/http1.js';

/** Feeds the pieces to one response reader in order; `closeAtEnd` ends the stream after the last. */
export function readAll(pieces: readonly Buffer[], closeAtEnd: boolean): Http1Response | undefined {
  const r = new ResponseReader();
  let res: Http1Response | undefined;
  for (const p of pieces) res = r.push(p) ?? res;
  if (!res && closeAtEnd) res = r.end();
  return res;
}
