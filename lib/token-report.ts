/**
 * The token-analysis report: counts of what a runtime's context receives
 * from agentteam, per surface and per tool, and optionally per tool over a
 * session transcript. Pure (the counter is passed in), so the CLI's
 * `token analyze` and the daemon's console page build the same report.
 */
import { isRuntimeKind } from '../catalog/runtimes.js';
import { MODEL_VIEW_RULES, modelView } from './token-model-view.js';

/** What the report reads of a parsed session transcript (the CLI's session parser produces it). */
interface SessionResults {
  readonly format: string;
  readonly lines: number;
  readonly badLines: number;
  readonly results: readonly { readonly tool: string | null; readonly text: string }[];
}

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

/** The same text as the runtime's model receives it (lib/token-model-view.ts). */
interface ModelMeasure {
  readonly modelBytes: number;
  readonly modelTokens: number;
}

export interface Report {
  runtime: string;
  tokenizer: string;
  /** Which parts of a tool definition this runtime sends its model. */
  modelView: string;
  /** `bytes`/`tokens`: the wire (what agentteam sends); `modelBytes`/`modelTokens`: what the model is sent. */
  surfaces: (Measure & ModelMeasure)[];
  tools: (Measure & ModelMeasure & { share: number })[];
  /**
   * What the runtime's model is sent on every turn before it does anything:
   * the model-visible inventory, the runtime guidance (which embeds the Exec
   * index) and the initialize instructions.
   */
  perTurn: { bytes: number; tokens: number; parts: string[] };
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

const share = (part: number, whole: number) =>
  whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0;
const byTokens = <T extends Measure>(a: T, b: T) =>
  b.tokens - a.tokens || b.bytes - a.bytes || a.name.localeCompare(b.name);

/** The surfaces that make up the per-turn figure (the Exec index is inside the guidance, so it is not added again). */
const PER_TURN = ['mcp_inventory', 'runtime_guidance', 'server_instructions'];

/** Counts every surface and tool definition, on the wire and as the model sees it, and attributes a session's tool results per agentteam tool, largest first. */
export function buildReport(
  input: SurfaceInput,
  count: Counter,
  tokenizer: string,
  session?: { file: string; parsed: SessionResults },
): Report {
  const measure = (name: string, text: string): Measure => ({
    name,
    bytes: Buffer.byteLength(text),
    tokens: count(text),
  });
  const runtime = isRuntimeKind(input.runtime) ? input.runtime : 'generic';
  const defs = input.tools.map((t) => {
    const view = modelView(runtime, t.definition);
    return {
      ...measure(t.name, t.definition),
      modelBytes: Buffer.byteLength(view),
      modelTokens: count(view),
      view,
    };
  });
  // A runtime lists its tools as one array of its own tool objects.
  const modelInventory = `[${defs.map((d) => d.view).join(',')}]`;
  const surfaces = Object.entries(input.surfaces).map(([k, text]) => {
    const m = measure(SURFACE_NAMES[k] ?? k, text);
    const model = m.name === 'mcp_inventory' ? measure(m.name, modelInventory) : m;
    return { ...m, modelBytes: model.bytes, modelTokens: model.tokens };
  });
  const inventoryTokens = surfaces.find((s) => s.name === 'mcp_inventory')?.tokens ?? 0;
  const turn = surfaces.filter((s) => PER_TURN.includes(s.name));
  const report: Report = {
    runtime: input.runtime,
    tokenizer,
    modelView: MODEL_VIEW_RULES[runtime],
    surfaces,
    tools: defs
      .map(({ view: _, ...d }) => ({ ...d, share: share(d.tokens, inventoryTokens) }))
      .sort(byTokens),
    perTurn: {
      bytes: turn.reduce((n, s) => n + s.modelBytes, 0),
      tokens: turn.reduce((n, s) => n + s.modelTokens, 0),
      parts: turn.map((s) => s.name),
    },
  };
  if (session) {
    const per = new Map<string, { calls: number; bytes: number; tokens: number }>();
    const other = { calls: 0, bytes: 0, tokens: 0 };
    for (const r of session.parsed.results) {
      const m = measure(r.tool ?? '', r.text);
      const slot =
        r.tool === null
          ? other
          : (per.get(r.tool) ?? per.set(r.tool, { calls: 0, bytes: 0, tokens: 0 }).get(r.tool)!);
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
      tools: [...per]
        .map(([name, v]) => ({ name, ...v, share: share(v.tokens, total) }))
        .sort(byTokens),
      otherTools: other,
    };
  }
  return report;
}

function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function renderReport(r: Report): string {
  const out = [
    `agentteam token analyze: runtime ${r.runtime}, tokens counted with ${r.tokenizer}`,
    '',
    table(
      ['Surface', 'Bytes', 'Tokens'],
      r.surfaces.map((s) => [s.name, s.bytes, s.tokens]),
    ),
    '',
    table(
      ['Tool definition', 'Bytes', 'Tokens', 'Share'],
      r.tools.map((t) => [t.name, t.bytes, t.tokens, pct(t.share)]),
    ),
    '',
    `What the model is sent (${r.modelView}); the tables above are the wire:`,
    '',
    table(
      ['Model-visible', 'Bytes', 'Tokens'],
      [
        ...r.tools.map((t) => [t.name, t.modelBytes, t.modelTokens]),
        ...r.surfaces.map((s) => [s.name, s.modelBytes, s.modelTokens]),
        [`per turn (${r.perTurn.parts.join(' + ')})`, r.perTurn.bytes, r.perTurn.tokens],
      ],
    ),
  ];
  if (r.session) {
    const s = r.session;
    out.push(
      '',
      `Session ${s.file} (${s.format}, ${s.lines} lines${s.badLines ? `, ${s.badLines} unreadable` : ''}): agentteam tool results, largest first`,
      '',
    );
    out.push(
      s.tools.length === 0
        ? '(no agentteam tool results)'
        : table(
            ['Tool', 'Calls', 'Bytes', 'Tokens', 'Share'],
            s.tools.map((t) => [t.name, t.calls, t.bytes, t.tokens, pct(t.share)]),
          ),
    );
    out.push(
      '',
      `Other tools: ${s.otherTools.calls} results, ${s.otherTools.bytes} bytes, ${s.otherTools.tokens} tokens`,
    );
  }
  return `${out.join('\n')}\n`;
}
