import { MaskError, maskValue } from '../masking/mask.js';
import type { Masked } from '../masking/masked.js';
import type { Matcher } from '../masking/matcher.js';

/** Why a result was withheld: it held a secret that masking could not remove intact. */
export const UNMASKABLE =
  'a result held a secret that could not be masked without changing its structure; it was not sent';

/**
 * The gate's last line: a serialized body (JSON or text) that did not pass
 * the typed helpers, screened as a whole. JSON is masked value by value
 * (keys too) so it stays JSON; when that cannot be done intact, the body is
 * replaced by an error of its own kind (a JSON-RPC error for a JSON-RPC
 * frame, else a 500 `internal` envelope). Other text is masked as text.
 */
export function screenSerialized(
  text: string,
  contentType: string,
  m: Matcher,
): { status?: number; body: Masked } {
  if (!m.test(text)) return { body: text as Masked };
  if (!/json/i.test(contentType)) return { body: m.replace(text) as Masked };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { body: m.replace(text) as Masked };
  }
  return screenDoc(doc, m);
}

function screenDoc(doc: unknown, m: Matcher): { status?: number; body: Masked } {
  try {
    const body = JSON.stringify(maskValue(doc, m)) as Masked;
    if (!m.test(body)) return { body };
  } catch (err) {
    if (!(err instanceof MaskError)) throw err;
  }
  const rpc = doc !== null && typeof doc === 'object' && 'jsonrpc' in doc;
  if (rpc) {
    const id = (doc as { id?: unknown }).id;
    const safeId = typeof id === 'number' ? id : null;
    return {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: safeId,
        error: { code: -32603, message: UNMASKABLE },
      }) as Masked,
    };
  }
  return {
    status: 500,
    body: JSON.stringify({
      ok: false,
      error: { code: 'internal', message: UNMASKABLE },
    }) as Masked,
  };
}
