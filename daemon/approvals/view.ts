import { NATIVE_VIEW_BYTES } from '../../catalog/domains/approval.js';
import { jsonBytes } from '../../catalog/limits.js';
import { cutOutsideLabel, type Masked } from '../masking/masked.js';
import type { Approval } from '../store/approval-rows.js';
import type { NativeAsk } from './ask.js';

type View = NonNullable<Approval['native']>['view'];
type Bounded = NonNullable<View['command']>;
type Mask = { maskText(text: string): Masked };

/** How many bytes of the command the title quotes (the whole command is in the view). */
const TITLE_COMMAND_BYTES = 200;

/**
 * Masked first (the result gate's masker, the one every result goes
 * through), then cut to `limit` bytes as JSON spells it, on a character
 * boundary and never inside a `[NAME]` label; a cut text says so (`cut`),
 * never silently. A lone surrogate (which no store can keep) becomes U+FFFD.
 */
function boundedText(gate: Mask, raw: string, limit: number): Bounded {
  const masked = gate.maskText(raw.replace(/\p{Cs}/gu, '\uFFFD'));
  const total = jsonBytes(masked);
  if (total <= limit) return { text: masked, cut: null };
  let used = 0;
  let end = 0;
  for (const ch of masked) {
    const cost = jsonBytes(ch);
    if (used + cost > limit) break;
    used += cost;
    end += ch.length;
  }
  const text = masked.slice(0, cutOutsideLabel(masked, end, 'start'));
  return { text, cut: { keptBytes: jsonBytes(text), totalBytes: total } };
}

/** What a person sees of a runtime's request: each text masked and bounded, and a one-line title. */
export function nativeView(gate: Mask, ask: NativeAsk): { title: string; view: View } {
  const view: Record<string, Bounded> = {};
  const put = (key: keyof typeof NATIVE_VIEW_BYTES, v: string | undefined) => {
    if (v !== undefined) view[key] = boundedText(gate, v, NATIVE_VIEW_BYTES[key]);
  };
  put('command', ask.command);
  put('cwd', ask.cwd);
  put('diff', ask.diff);
  put('toolName', ask.toolName);
  if (ask.toolInput !== undefined) put('toolInput', JSON.stringify(ask.toolInput) ?? 'null');
  put('reason', ask.reason);
  const who = ask.delegated ? ' (delegated)' : '';
  const what =
    ask.kind === 'command'
      ? `run: ${oneLine(boundedText(gate, ask.command ?? '', TITLE_COMMAND_BYTES))}`
      : ask.kind === 'file_change'
        ? 'change files'
        : `call tool ${view.toolName?.text ?? '?'}`;
  return { title: `${ask.runtime}${who} asks to ${what}`, view: view as View };
}

function oneLine(b: Bounded): string {
  const line = b.text.replace(/\s+/g, ' ').trim();
  return b.cut ? `${line}…` : line;
}
