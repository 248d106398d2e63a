import fc from 'fast-check';
import type { TestContext } from 'node:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { sharedBoundary } from '../daemon/mcp/boundary.js';
import type { ResultGate } from '../daemon/results/gate.js';
import { gateWith } from './gate.js';
import { figure, scale } from './scale.js';

/**
 * Generators and the leak check shared by the result gate's property tests.
 * A secret is 8-200 UTF-8 bytes of printable ASCII, characters JSON escapes
 * (quote, backslash, control characters) and multibyte characters; filler
 * text is drawn from a word list, so it shares no 8-byte run with a secret.
 */

const ESCAPED = [
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
];
const MULTIBYTE = ['é', 'ß', 'ж', '漢', '字', '€', '🔑', '😀', '\u0301', 'ﬁ', '…'];

const secretChar = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.constantFrom(...ESCAPED) },
  { weight: 2, arbitrary: fc.constantFrom(...MULTIBYTE) },
);

/** The longest prefix of `s` within `max` UTF-8 bytes, never splitting a character. */
function withinBytes(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch, 'utf8') > max) break;
    out += ch;
  }
  return out;
}

export const secretArb: fc.Arbitrary<string> = fc
  .array(secretChar, { minLength: 8, maxLength: 120 })
  .map((cs) => withinBytes(cs.join(''), 200))
  .filter((s) => Buffer.byteLength(s, 'utf8') >= 8);

export const WORDS = [
  'alpha',
  'deploy',
  'canary',
  'budget',
  'roadmap',
  'token',
  'key',
  'notes',
  'weekly',
  'the',
  'and',
  'of',
  'release',
  'github',
  'secret',
  'ghp',
];
const word = fc.constantFrom(...WORDS);

/** A line of filler words; `long` lines are far longer than a search passage (1.5 KB) or a kb_fetch page (8 KiB). */
export const lineArb = (long: boolean): fc.Arbitrary<string> =>
  long
    ? fc
        .tuple(fc.integer({ min: 2_000, max: 20_000 }), fc.nat())
        .map(([n, seed]) => fillerOf(n, seed))
    : fc.array(word, { maxLength: 14 }).map((ws) => ws.join(' '));

/** About `chars` characters of filler words, chosen by a small generator from `seed` (cheap for long lines). */
function fillerOf(chars: number, seed: number): string {
  const out: string[] = [];
  let x = seed | 1;
  let n = 0;
  while (n < chars) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const w = WORDS[(x >>> 8) % WORDS.length]!;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ');
}

/** Filler of several lines (some headings, some long when `long`), the secret planted at a random offset of a random line, and a code word elsewhere. */
export interface Planted {
  readonly secret: string;
  readonly text: string;
  /** A substring of the secret an attacker might search for. */
  readonly query: string;
}

export function plantedArb(opts: { long: boolean; maxLines?: number }): fc.Arbitrary<Planted> {
  const lines = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: lineArb(false) },
      { weight: 1, arbitrary: word.map((w) => `# ${w}`) },
      { weight: opts.long ? 2 : 0, arbitrary: lineArb(true) },
    ),
    {
      minLength: 1,
      maxLength: opts.maxLines ?? 30,
    },
  );
  return fc
    .record({
      secret: secretArb,
      lines,
      at: fc.nat(),
      offset: fc.nat(),
      glue: fc.constantFrom('', ' ', '\n', ': ', '='),
      qs: fc.nat(),
      ql: fc.integer({ min: 1, max: 40 }),
      star: fc.boolean(),
    })
    .map(({ secret, lines, at, offset, glue, qs, ql, star }) => {
      const copy = [...lines];
      const i = at % copy.length;
      const line = copy[i]!;
      const o = offset % (line.length + 1);
      copy[i] = `${line.slice(0, o)}${glue}${secret}${glue}${line.slice(o)}`;
      const chars = [...secret];
      const start = qs % chars.length;
      const q = chars.slice(start, start + ql).join('');
      return { secret, text: `${copy.join('\n')}\n`, query: star ? `${q}*` : q };
    });
}

/** Every shortest substring of at least 8 UTF-8 bytes (one per starting character): any longer run contains one. */
export function windows(secret: string): string[] {
  const chars = [...secret];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i++) {
    let w = '';
    let j = i;
    while (j < chars.length && Buffer.byteLength(w, 'utf8') < 8) w += chars[j++];
    if (Buffer.byteLength(w, 'utf8') >= 8) out.push(w);
  }
  return out;
}

const esc = (s: string) => JSON.stringify(s).slice(1, -1);

/** Text the outputs may hold anyway (filler, labels, JSON structure): a window found in it proves nothing. */
export const BENIGN = `${WORDS.join(' ')} {"ok":true,"data":{"hits":[{"path":"","docId":"","title":"","snippet":"","score":0,"lineStart":1,"lineEnd":1,"line":1}],"hasMore":false,"nextCursor":""},"content":[{"type":"text","text":""}],"structuredContent":{},"isError":false,"error":{"code":"","message":"","hint":""}}`;

/**
 * The first window of `secret` that occurs in `output` raw, JSON-escaped once
 * or twice (text copies of JSON inside JSON frames), or null. Windows that
 * also occur in `benign` are skipped.
 */
export function leakOf(secret: string, output: string, benign = ''): string | null {
  for (const w of windows(secret)) {
    if (benign.includes(w) || BENIGN.includes(w)) continue;
    for (const form of [w, esc(w), esc(esc(w))]) if (output.includes(form)) return w;
  }
  return null;
}

/** Asserts no case's secret leaks into `output` (message names the window and shows the context). */
export function assertNoLeak(secret: string, output: string, what: string, benign = ''): void {
  const w = leakOf(secret, output, benign);
  if (w === null) return;
  const forms = [w, esc(w), esc(esc(w))];
  const form = forms.find((f) => output.includes(f))!;
  const at = output.indexOf(form);
  throw new Error(
    `${what}: ${JSON.stringify(w)} of secret ${JSON.stringify(secret)} appears in the output: ...${JSON.stringify(output.slice(Math.max(0, at - 80), at + form.length + 80))}...`,
  );
}

/**
 * Batches of planted cases: `runs` runs of `size` cases each (fast-check
 * shrinks a failing batch): 300 cases in `npm test`, 2,000 at soak scale
 * (scale.ts).
 */
export const BATCHES = { runs: scale(3, 20), size: 100 } as const;
/** The cases each producer runs, as a title writes the figure. */
export const CASES = figure(BATCHES.runs * BATCHES.size);

/** The batch helpers of the results-gate property files: a gate masking a batch, frames, spill checks. */
const tool = (name: string) => MCP_TOOLS.find((x) => x.name === name)!;
export const names = (n: number) => Array.from({ length: n }, (_, i) => `GATE_S${i}`);

export function batchGate(secrets: readonly string[], spill: string): ResultGate {
  return gateWith(Object.fromEntries(secrets.map((s, i) => [`GATE_S${i}`, s])), spill);
}

export function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The MCP frame of a tool's answer, as the shared boundary makes it (or the error it becomes). */
export function frameOf(
  gate: ResultGate,
  name: string,
  input: Record<string, unknown>,
  data: unknown,
): string {
  try {
    return sharedBoundary(gate)(tool(name), input, data);
  } catch (err) {
    return JSON.stringify(gate.error(err));
  }
}

export async function settle<T>(
  p: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Every spill file written so far, checked against every secret of the batch. */
export function checkSpills(dir: string, secrets: readonly string[]): void {
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return;
  }
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const s of secrets) assertNoLeak(s, text, `spill file ${f}`);
  }
}

export const withWord = (p: Planted, i: number) =>
  p.text.replace(p.secret, () => ` cw${i}q ${p.secret} cw${i}q `);

/** Filler with the secret at a random offset, `size` bytes about (cheap to make large). */
export const outputArb = fc.record({
  secret: secretArb,
  size: fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1_000, max: 12_000 })),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  seed: fc.nat(),
});
export function outputText(o: { secret: string; size: number; at: number; seed: number }): string {
  const filler = Array.from(
    { length: Math.ceil(o.size / 6) + 1 },
    (_, k) => WORDS[(o.seed + k * 7) % WORDS.length],
  )
    .join(' ')
    .slice(0, o.size);
  const cut = Math.floor(filler.length * o.at);
  return `${filler.slice(0, cut)}${o.secret}${filler.slice(cut)}`;
}

/**
 * The first `n` characters of `text`, or fewer, so that the cut does not fall
 * inside an occurrence of `secret`. A test's own producers (a declared tool,
 * an upstream, an app) bound what they send this way: a producer
 * that cuts a credential itself hands on a piece of it, which no masking by
 * value can recognize (specs/tools.md, "Mask first, always"), and that is
 * not what the tests plant.
 */
export function headOutside(text: string, secret: string, n: number): string {
  for (let at = text.indexOf(secret); at !== -1 && at < n; at = text.indexOf(secret, at + 1)) {
    if (at + secret.length > n) return text.slice(0, at);
  }
  return text.slice(0, n);
}
