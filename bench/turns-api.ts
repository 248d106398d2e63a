import type { SpawnedDaemon } from '../devkit/daemon.js';
import { post } from '../devkit/http.js';
import { operatorToken } from '../devkit/lease.js';
import type { Turn } from '../devkit/turns.js';

/** The operator calls of bench/turns.ts: post as a person, read turns (keep-alive node:http). */

const FINAL = new Set(['succeeded', 'failed', 'cancelled', 'interrupted', 'dropped']);

/** A turn as `turn list` gives it, with the times the bench reads. */
export type ListedTurn = Turn & { createdAt: string; startedAt: string | null };

export class TurnsApi {
  private readonly token: string;
  constructor(private readonly d: SpawnedDaemon) {
    this.token = operatorToken(d);
  }
  async call<T>(path: string, body: unknown): Promise<T> {
    const r = await post(new URL(path, this.d.url).toString(), this.token, JSON.stringify(body));
    if (r.json?.ok !== true) throw new Error(`${path} answered ${r.status}: ${r.text}`);
    return r.json.data as T;
  }
  postMessage(agent: string, text: string) {
    return this.call<{ message: { id: string }; turns: { turnId: string; joined: boolean }[] }>(
      '/api/v1/messages',
      { serverId: 'local', target: `dm:${agent}`, author: 'human:ada', content: text },
    );
  }
  /** Reads made so far (they cost the daemon CPU too). */
  reads = 0;
  read<T>(action: string, input: unknown): Promise<T> {
    this.reads++;
    return this.call<T>(`/api/v1/servers/local/reads/turn/${action}`, input);
  }
  async waitEnded(id: string): Promise<Turn> {
    for (;;) {
      const { turn } = await this.read<{ turn: Turn }>('get', { id });
      if (FINAL.has(turn.state)) return turn;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  async allTurns(): Promise<ListedTurn[]> {
    const out: ListedTurn[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.read<{ turns: typeof out; hasMore: boolean; nextCursor?: string }>(
        'list',
        { limit: 100, ...(cursor ? { cursor } : {}) },
      );
      out.push(...page.turns);
      cursor = page.hasMore ? page.nextCursor : undefined;
    } while (cursor);
    return out;
  }
}
