import { strict as assert } from 'node:assert';

/**
 * A tool error as the model reads it, for any tool source: the one text
 * block of an isError result holds the error envelope {"ok":false,"error":
 * {code, message, ...}}. Returns the envelope's error after checking that
 * shape, so tests assert on its code and message.
 */
export function toolError(result: unknown): { code: string; message: string } {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  assert.equal(r.isError, true, `not a tool error: ${JSON.stringify(result).slice(0, 300)}`);
  const blocks = r.content ?? [];
  assert.equal(blocks.length, 1, 'a tool error is one text block');
  assert.equal(blocks[0]!.type, 'text');
  const envelope = JSON.parse(blocks[0]!.text!) as {
    ok: unknown;
    error: { code: unknown; message: unknown };
  };
  assert.equal(envelope.ok, false);
  assert.equal(typeof envelope.error.code, 'string');
  assert.equal(typeof envelope.error.message, 'string');
  return envelope.error as { code: string; message: string };
}

/** The error as one line, `<code>: <message>`, for assertions written against that reading. */
export function toolErrorLine(result: unknown): string {
  const e = toolError(result);
  return `${e.code}: ${e.message}`;
}
