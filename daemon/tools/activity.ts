import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** One entry of the tool activity log (and one operator event). */
interface ToolEvent {
  readonly seq: number;
  readonly type: 'tool.shown' | 'tool.asked' | 'tool.answered';
  readonly at: string;
  readonly serverId: string;
  readonly agent: string;
  readonly tool: string;
  readonly text: string;
  readonly askId?: string;
}

/** How events leave this module; the daemon connects it to the operator event stream. */
type EventSink = (type: ToolEvent['type'], data: ToolEvent) => void;

const LOG_SIZE = 500;
const MAX_PENDING = 1024;

interface Ask {
  readonly id: string;
  readonly key: string;
  readonly question: string;
  answer?: string;
}

/**
 * What declared tools show to people and ask them: a bounded in-daemon log
 * (`agentteam tools log`) plus one publish function to the event stream.
 * A question waits per (server, agent, tool); the person's answer is handed
 * to the next call of that tool by that agent, once.
 */
export class ToolActivity {
  private readonly entries: ToolEvent[] = [];
  private readonly asks = new Map<string, Ask>();
  private readonly byId = new Map<string, Ask>();
  private seq = 0;
  private sinks: EventSink[] = [];

  constructor(private readonly clock: Clock) {}

  /** Adds a sink (the operator event stream); returns the function that removes it. */
  connect(sink: EventSink): () => void {
    this.sinks.push(sink);
    return () => (this.sinks = this.sinks.filter((s) => s !== sink));
  }

  private record(e: Omit<ToolEvent, 'seq' | 'at'>): ToolEvent {
    const event: ToolEvent = {
      seq: ++this.seq,
      at: new Date(this.clock.now()).toISOString(),
      ...e,
    };
    this.entries.push(event);
    if (this.entries.length > LOG_SIZE) this.entries.shift();
    for (const s of this.sinks) {
      try {
        s(event.type, event);
      } catch {
        // a sink's failure must not fail the tool call
      }
    }
    return event;
  }

  shown(serverId: string, agent: string, tool: string, text: string): void {
    this.record({ type: 'tool.shown', serverId, agent, tool, text });
  }

  ask(serverId: string, agent: string, tool: string, question: string): string {
    const key = `${serverId}\u0000${agent}\u0000${tool}`;
    const old = this.asks.get(key);
    if (old) this.byId.delete(old.id);
    if (this.byId.size >= MAX_PENDING) {
      const oldest = this.byId.values().next().value as Ask;
      this.byId.delete(oldest.id);
      this.asks.delete(oldest.key);
    }
    const ask: Ask = { id: `ask_${randomBytes(9).toString('base64url')}`, key, question };
    this.asks.set(key, ask);
    this.byId.set(ask.id, ask);
    this.record({ type: 'tool.asked', serverId, agent, tool, text: question, askId: ask.id });
    return ask.id;
  }

  /** The person's answer; false when no question with this id waits. */
  answer(askId: string, answer: string): boolean {
    const ask = this.byId.get(askId);
    if (!ask || ask.answer !== undefined) return false;
    ask.answer = answer;
    const [serverId = '', agent = '', tool = ''] = ask.key.split('\u0000');
    this.record({ type: 'tool.answered', serverId, agent, tool, text: answer, askId });
    return true;
  }

  /** The answer waiting for this agent's next call of `tool`, consumed; undefined when none. */
  takeAnswer(serverId: string, agent: string, tool: string): string | undefined {
    const key = `${serverId}\u0000${agent}\u0000${tool}`;
    const ask = this.asks.get(key);
    if (!ask || ask.answer === undefined) return undefined;
    this.asks.delete(key);
    this.byId.delete(ask.id);
    return ask.answer;
  }

  /** Questions still waiting for an answer. */
  pending(): { askId: string; serverId: string; agent: string; tool: string; question: string }[] {
    return [...this.byId.values()]
      .filter((a) => a.answer === undefined)
      .map((a) => {
        const [serverId = '', agent = '', tool = ''] = a.key.split('\u0000');
        return { askId: a.id, serverId, agent, tool, question: a.question };
      });
  }

  /** The newest `limit` entries, oldest first; `after` skips entries up to that sequence number. */
  log(limit = 100, after = 0): ToolEvent[] {
    return this.entries.filter((e) => e.seq > after).slice(-limit);
  }
}
