import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  KbFetchInput,
  KbFetchOutput,
  KbSearchInput,
  KbSearchOutput,
} from '../../catalog/mcp-knowledge-tools.js';
import type { Clock } from '../../lib/clock.js';
import type { Principal } from '../auth/principal.js';
import { EmbeddedKnowledge, type KbMasking } from './kb-embedded.js';
import type { ResultGate } from '../results/gate.js';
import { KnowledgeUpstream, type UpstreamConfig } from './kb-upstream.js';
import type { CheckedTurn } from './turn.js';

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * $AGENTTEAM_HOME/kb.json, optional: `{"upstream": {"url": "http://HOST:PORT", "timeoutMs": 10000}}`.
 * Without it (or without `upstream`) the embedded folder index answers.
 * A file that cannot be used is reported and ignored.
 */
function readKbConfig(home: string, log: (m: string) => void): UpstreamConfig | null {
  let raw: string;
  try {
    raw = readFileSync(join(home, 'kb.json'), 'utf8');
  } catch {
    return null;
  }
  try {
    const v = JSON.parse(raw) as { upstream?: { url?: unknown; timeoutMs?: unknown } };
    if (v.upstream === undefined) return null;
    const url = new URL(String(v.upstream.url));
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error('upstream.url must be http or https');
    if (url.username || url.password) throw new Error('upstream.url must not carry credentials');
    const t = v.upstream.timeoutMs;
    if (t !== undefined && (!Number.isInteger(t) || (t as number) < 100 || (t as number) > 120_000))
      throw new Error('upstream.timeoutMs must be 100..120000');
    return { url: url.toString(), timeoutMs: (t as number | undefined) ?? DEFAULT_TIMEOUT_MS };
  } catch (err) {
    log(`kb.json ignored: ${(err as Error).message}`);
    return null;
  }
}

/** The knowledge source of the daemon: the configured upstream, else the embedded folder. */
export class KnowledgeBase {
  private upstream: KnowledgeUpstream | null;
  private readonly embedded: EmbeddedKnowledge;

  constructor(
    private readonly opts: {
      home: string;
      clock: Clock;
      log: (m: string) => void;
      gate: KbMasking & Pick<ResultGate, 'clip'>;
      diag?: (e: string, d: Record<string, unknown>) => void;
    },
  ) {
    this.embedded = new EmbeddedKnowledge(opts);
    const cfg = readKbConfig(opts.home, opts.log);
    this.upstream = cfg ? new KnowledgeUpstream(cfg, opts.gate, this.opts.clock) : null;
  }

  /** Re-reads kb.json (daemon reload). */
  reload(): { upstream: boolean } {
    const cfg = readKbConfig(this.opts.home, this.opts.log);
    this.upstream = cfg ? new KnowledgeUpstream(cfg, this.opts.gate, this.opts.clock) : null;
    return { upstream: this.upstream !== null };
  }

  /** Whether calls go to the configured upstream (else the embedded folder index answers). */
  get remote(): boolean {
    return this.upstream !== null;
  }

  search(
    p: Principal,
    turn: CheckedTurn,
    input: KbSearchInput,
    signal: AbortSignal,
  ): Promise<KbSearchOutput> {
    return this.upstream
      ? this.upstream.search(p, turn, input, signal)
      : this.embedded.search(input);
  }

  async fetch(
    p: Principal,
    turn: CheckedTurn,
    input: KbFetchInput,
    signal: AbortSignal,
  ): Promise<KbFetchOutput> {
    return this.upstream ? this.upstream.fetch(p, turn, input, signal) : this.embedded.fetch(input);
  }

  close(): void {
    this.embedded.close();
  }
}
