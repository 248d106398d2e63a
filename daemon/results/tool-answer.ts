import { ExecError } from '../errors/exec-error.js';
import { MaskError, maskValue } from '../masking/mask.js';
import type { Masked } from '../masking/masked.js';
import type { Matcher } from '../masking/matcher.js';
import type { SpillStore } from './spill.js';
import {
  RedactError,
  redactCredentialFields,
  redactJsonText,
} from '../masking/credential-fields.js';
import { boundToolFrame } from './tool-frame.js';

/** An answer from outside the daemon: MCP content blocks, optionally a stdio app's structured JSON. */
export interface ToolAnswer {
  readonly content: readonly unknown[];
  readonly structured?: { readonly value: unknown };
  readonly isError: boolean;
}

type Block = Record<string, unknown>;

/**
 * An app's answer on its way to the agent, in the gate's order: configured
 * secrets masked by value in every string, keys included; then every value
 * under a credential-like key redacted, in the structured JSON, in the
 * blocks' fields and inside text blocks that are JSON (credential-fields.ts);
 * then the whole CallToolResult bounded (tool-frame.ts).
 *
 * What cannot be done without losing something is refused, never dropped:
 * two keys that masking makes equal, a JSON text that cannot be redacted,
 * parts that are never cut and do not fit. The refusal is `validation_failed`
 * to the app that answered, before its call is settled, so it can answer
 * again within the call's deadline.
 */
export function screenToolAnswer(answer: ToolAnswer, m: Matcher, spill: SpillStore): Masked {
  const refuse = (why: string) =>
    new ExecError('validation_failed', `the result was not accepted: ${why}`);
  let masked: Block[];
  let structured: { value: unknown } | undefined;
  // With nothing configured to mask, the answer is not copied (the relay's hot path).
  const mask = (v: unknown) => (m.size === 0 ? v : maskValue(v, m));
  try {
    masked = mask(answer.content) as Block[];
    structured = answer.structured
      ? { value: redactCredentialFields(mask(answer.structured.value)) }
      : undefined;
  } catch (err) {
    if (err instanceof MaskError) throw refuse(`${err.message}; a key holds a configured secret`);
    throw err;
  }
  const content = masked.map((raw, i) => {
    const b = redactCredentialFields(raw) as Block;
    if (b.type !== 'text' || typeof b.text !== 'string') return b;
    try {
      const text = redactJsonText(b.text);
      return text === b.text ? b : { ...b, text };
    } catch (err) {
      if (err instanceof RedactError) throw refuse(`content[${i}].text ${err.message}`);
      throw err;
    }
  });
  const out = boundToolFrame(
    { content, ...(structured ? { structured } : {}), isError: answer.isError },
    spill,
  );
  if (!out.ok) throw refuse(out.message);
  // String-by-string masking misses a secret split across two strings: the frame is checked whole.
  if (m.test(out.frame))
    throw refuse('it holds a configured secret split across strings, which cannot be masked');
  return out.frame;
}
