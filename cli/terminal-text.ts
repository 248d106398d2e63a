/**
 * Text that agents control (tool names, topics, titles, messages) reaches a
 * person's terminal through the human-readable printers. A terminal acts on
 * control characters: ESC and the C1 controls start sequences that set the
 * window title, write the clipboard (OSC 52), plant hyperlinks (OSC 8) or
 * erase what was printed; a newline inside a field starts a line that looks
 * like another record; bidi overrides reorder what the eye reads. So every
 * such character is shown as an escape (`\x1b`, `\u009b`, `\n`) instead of
 * being sent.
 */

/** C0, DEL, C1, the line and paragraph separators, and the bidi embeddings, overrides and isolates. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same set without line feed and tab, which a block of text keeps. */
const CONTROL_IN_BLOCK =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function shown(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  // \xHH for C0 and DEL as terminals document them; \uHHHH for the rest, as JSON would write them.
  return code < 0x80
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One field on one line: every control character is shown as its escape, newlines included. */
export function visible(text: string): string {
  return text.replace(CONTROL, shown);
}

/**
 * A block of free text (what a tool showed, an agent's message): its line
 * breaks stay line breaks, each continuation line starts with `indent` so
 * it cannot pass for a record of its own, tabs stay, and every other
 * control character (a carriage return included) is shown as its escape.
 */
export function visibleBlock(text: string, indent: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL_IN_BLOCK, shown).replace(/\n/g, `\n${indent}`);
}
