import { calls, execDuration, mcpDuration } from '../telemetry/instruments.js';
import type { CallOutcome } from '../../catalog/call-outcome.js';

/**
 * The series one kind of call records into, resolved on its first call:
 * afterwards recording is a map lookup and a few increments, with no
 * attribute records made per call. The labels are closed sets (catalog
 * names, registered tools, error codes), so the map stays small; it is
 * bounded all the same.
 */
interface Bound {
  readonly duration: (seconds: number) => void;
  readonly calls: ((n: number) => void) | null;
}
const BOUND_MAX = 4096;
/** The series by their labels, one map level per label (no joined key string to build and hash per call). */
type Level = Map<string, Level | Bound>;
let bound: Level = new Map();
let boundCount = 0;

function boundFor(labels: readonly string[], make: () => Bound): Bound {
  let level = bound;
  const last = labels.length - 1;
  for (let i = 0; i < last; i++) {
    let next = level.get(labels[i]!) as Level | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(labels[i]!, next);
    }
    level = next;
  }
  let b = level.get(labels[last]!) as Bound | undefined;
  if (b === undefined) {
    if (boundCount >= BOUND_MAX) {
      bound = new Map();
      boundCount = 0;
      return boundFor(labels, make);
    }
    b = make();
    level.set(labels[last]!, b);
    boundCount++;
  }
  return b;
}

/** An Exec call: its duration by action (and error), one count by outcome. */
export function countExec(
  domain: string,
  action: string,
  outcome: CallOutcome,
  seconds: number,
): void {
  const b = boundFor(['exec', domain, action, outcome], () => ({
    duration: execDuration.bind(
      outcome === 'ok'
        ? { 'agentteam.exec.domain': domain, 'agentteam.exec.action': action }
        : {
            'agentteam.exec.domain': domain,
            'agentteam.exec.action': action,
            'error.type': outcome,
          },
    ),
    calls: calls.bind({
      'agentteam.transport': 'exec',
      'agentteam.tool': `${domain}/${action}`,
      'agentteam.outcome': outcome,
    }),
  }));
  b.duration(seconds);
  b.calls!(1);
}

/** What an MCP request's series are keyed by. */
interface McpLabels {
  readonly method: string;
  /** The registered tool a tools/call reached. */
  readonly tool: string | undefined;
  readonly version: string | undefined;
  /** The conventions' `error.type`: a JSON-RPC code as a string, `tool_error`, or an HTTP status. */
  readonly errorType: string | undefined;
  readonly outcome: CallOutcome;
}

/** An MCP request: its duration (every method), and for tools/call one count by tool and outcome. */
export function countMcp(l: McpLabels, seconds: number): void {
  const { method, tool, version, errorType, outcome } = l;
  const b = boundFor(
    // \u0000 stands for an absent label (no label value contains it).
    ['mcp', method, tool ?? '\u0000', version ?? '\u0000', errorType ?? '\u0000', outcome],
    () => {
      const attrs: Record<string, string> = {
        'mcp.method.name': method,
        'network.transport': 'tcp',
      };
      if (tool !== undefined) attrs['gen_ai.tool.name'] = tool;
      if (version !== undefined) attrs['mcp.protocol.version'] = version;
      if (errorType !== undefined) attrs['error.type'] = errorType;
      return {
        duration: mcpDuration.bind(attrs),
        calls:
          method === 'tools/call'
            ? calls.bind({
                'agentteam.transport': 'mcp',
                'agentteam.tool': tool ?? '_unknown',
                'agentteam.outcome': outcome,
              })
            : null,
      };
    },
  );
  b.duration(seconds);
  b.calls?.(1);
}
