import type { TurnError } from '../../catalog/turns.js';
import type { ClaimedTurn } from '../store/turn-rows.js';
import { tracing, type SpanHandle } from '../telemetry/tracing.js';

/** A turn's span: the root of the trace its runtime's calls join. */
export interface TurnSpan {
  /** Its W3C `traceparent`, or null when the daemon does not trace. */
  readonly traceparent: string | null;
  /** Ends it once (later calls do nothing), marked failed when the turn has an error. */
  end(state: string, error: TurnError | null): void;
}

const UNTRACED: TurnSpan = { traceparent: null, end() {} };

/**
 * Opens the span `turn` for a claimed turn when the daemon traces. The
 * runtime's authorization carries its `traceparent`, so each Exec or MCP call
 * the runtime makes without trace context of its own is a child of the turn
 * (daemon/observe/span-attrs.ts); the runtime also gets it as `TRACEPARENT`,
 * so one that traces itself continues the same trace.
 */
export function openTurnSpan(turn: ClaimedTurn): TurnSpan {
  const t = tracing();
  if (t === null) return UNTRACED;
  const span: SpanHandle = t.root('turn', {
    'agentteam.turn.id': turn.id,
    'agentteam.server_id': turn.serverId,
    'agentteam.agent_id': turn.agentId,
  });
  const traceparent = t.withinSync(span, () => t.inject())?.traceparent ?? null;
  let open = true;
  return {
    traceparent,
    end(state, error) {
      if (!open) return;
      open = false;
      span.set({ 'agentteam.turn.state': state });
      if (error !== null) span.fail(error);
      span.end();
    },
  };
}
