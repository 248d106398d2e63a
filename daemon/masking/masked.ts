declare const MASKED: unique symbol;

/**
 * Text that has been through the result gate's masking. Only the gate
 * (daemon/results/gate.ts) and the log writer (daemon/masking/log.ts) make
 * one; everything that cuts, bounds, chunks, spills or writes text to a place
 * outside the daemon takes this type, so handing it raw text is a type error
 * (and a test fails on any `as Masked` elsewhere).
 */
export type Masked = string & { readonly [MASKED]: true };

/** What a masking label looks like: `[NAME]`, the name of safe characters only (daemon/masking/secrets.ts). */
const LABEL_CHARS = /[A-Za-z0-9_.:-]/;
const MAX_LABEL = 66;

/**
 * Moves a cut at character index `at` out of any `[NAME]` label it would fall
 * inside: to the label's start when `toward` is 'start', else to its end, so
 * a cut never shows half a name. Labels hold no brackets, so only the nearest
 * `[` before the cut can open one.
 */
export function cutOutsideLabel(text: Masked, at: number, toward: 'start' | 'end'): number {
  if (at <= 0 || at >= text.length) return at;
  const open = text.lastIndexOf('[', at - 1);
  if (open < 0 || at - open >= MAX_LABEL) return at;
  let close = open + 1;
  while (close < text.length && close - open < MAX_LABEL && LABEL_CHARS.test(text[close]!)) close++;
  if (text[close] !== ']' || close === open + 1 || close < at) return at;
  return toward === 'start' ? open : close + 1;
}
