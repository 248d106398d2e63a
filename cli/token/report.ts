import type { ParsedSession } from './session.js';

type Counter = (text: string) => number;

interface Measure {
  readonly name: string;
  readonly bytes: number;
  readonly tokens: number;
}

export interface SurfaceInput {
  readonly runtime: string;
  readonly surfaces: Readonly<Record<string, string>>;
  readonly tools: readonly { name: string; definition: string }[];
}

export interface Report {
  runtime: string;
  tokenizer: string;
  surfaces: Measure[];
  tools: (Measure & { share: number })[];
  session?: {
    file: string;
    format: string;
    lines: number;
    badLines: number;
    tools: (Measure & { calls: number; share: number })[];
    otherTools: { calls: number; bytes: number; tokens: number };
  };
}

const SURFACE_NAMES: Record<string, string> = {
  mcpInventory: 'mcp_inventory',
  guidance: 'runtime_guidance',
  execIndex: 'exec_index',
  serverInstructions: 'server_instructions',
};

const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);
const byTokens = <T extends Measure>(a: T, b: T) => b.tokens - a.tokens || b.bytes - a.bytes || a.name.localeCompare(b.name);

/** Counts every surface and tool definition, and attributes a session's tool results per agentteam tool, largest first. */
export function buildReport(input: SurfaceInput, count: Counter, tokenizer: string, session?: { file: string; parsed: ParsedSession }): Report {
  const measure = (name: string, text: string): Measure => ({ name, bytes: Buffer.byteLength(text), tokens: count(text) });
  const surfaces = Object.entries(input.surfaces).map(([k, text]) => measure(SURFACE_NAMES[k] ?? k, text));
  const defs = input.tools.map((t) => measure(t.name, t.definition));
  const inventoryTokens = surfaces.find((s) => s.name === 'mcp_inventory')?.tokens ?? 0;
  const report: Report = {
    runtime: input.runtime,
    tokenizer,
    surfaces,
    tools: defs.map((d) => ({ ...d, share: share(d.tokens, inventoryTokens) })).sort(byTokens),
  };
  if (session) {
    const per = new Map<string, { calls: number; bytes: number; tokens: number }>();
    const other = { calls: 0, bytes: 0, tokens: 0 };
    for (const r of session.parsed.results) {
      const m = measure(r.tool ?? '', r.text);
      const slot = r.tool === null ? other : per.get(r.tool) ?? per.set(r.tool, { calls: 0, bytes: 0, tokens: 0 }).get(r.tool)!;
      slot.calls++;
      slot.bytes += m.bytes;
      slot.tokens += m.tokens;
    }
    const total = [...per.values()].reduce((n, v) => n + v.tokens, 0);
    report.session = {
      file: session.file,
      format: session.parsed.format,
      lines: session.parsed.lines,
      badLines: session.parsed.badLines,
      tools: [...per].map(([name, v]) => ({ name, ...v, share: share(v.tokens, total) })).sort(byTokens),
      otherTools: other,
    };
  }
  return report;
}

function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd()).join('\n');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function renderReport(r: Report): string {
  const out = [
    `agentteam token analyze: runtime ${r.runtime}, tokens counted with ${r.tokenizer}`,
    '',
    table(['Surface', 'Bytes', 'Tokens'], r.surfaces.map((s) => [s.name, s.bytes, s.tokens])),
    '',
    table(['Tool definition', 'Bytes', 'Tokens', 'Share'], r.tools.map((t) => [t.name, t.bytes, t.tokens, pct(t.share)])),
  ];
  if (r.session) {
    const s = r.session;
    out.push('', `Session ${s.file} (${s.format}, ${s.lines} lines${s.badLines ? `, ${s.badLines} unreadable` : ''}): agentteam tool results, largest first`, '');
    out.push(s.tools.length === 0 ? '(no agentteam tool results)' : table(['Tool', 'Calls', 'Bytes', 'Tokens', 'Share'], s.tools.map((t) => [t.name, t.calls, t.bytes, t.tokens, pct(t.share)])));
    out.push('', `Other tools: ${s.otherTools.calls} results, ${s.otherTools.bytes} bytes, ${s.otherTools.tokens} tokens`);
  }
  return out.join('\n') + '\n';
}
