/**
 * JSON for stdout. JSON.stringify escapes C0 but leaves DEL, the C1 controls
 * (U+0080–U+009F: a terminal takes U+009B as CSI and U+009D as OSC), the line
 * and paragraph separators and the bidi overrides raw, so agent-controlled
 * text printed as JSON could still drive a terminal that shows it. Written
 * as `\uXXXX` escapes they are inert, and the text still parses to exactly
 * the same value.
 */

/** Never JSON whitespace or syntax: in JSON text they occur inside strings only, where an escape means the same. */
const RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text (as JSON.stringify writes it, or a daemon sent it) with those
 * characters escaped. Raw C0 controls, which JSON.stringify never writes,
 * are escaped too, so a line that is not JSON at all reaches the terminal
 * inert as well.
 */
export function escapeJsonText(text: string): string {
  return text.replace(RAW, escaped).replace(/[\u0000-\u001f]/g, escaped);
}

/** `value` as one line of JSON text that is safe on a terminal. */
export function jsonText(value: unknown): string {
  return escapeJsonText(JSON.stringify(value));
}
