import { recorder, type Attrs, type Observed } from './recorder.js';

/**
 * The daemon's instruments. Attribute values are closed sets or names the
 * daemon itself knows (catalog actions, registered tools): never task,
 * message, request or authorization ids, never a value from a caller that
 * the daemon has not recognised.
 */

export const mcpDuration = recorder.histogram({
  name: 'mcp.server.operation.duration',
  unit: 's',
  description: 'Duration of MCP requests as seen by the server (OpenTelemetry MCP conventions).',
});

export const execDuration = recorder.histogram({
  name: 'agentteam.exec.operation.duration',
  unit: 's',
  description: 'Duration of Exec action calls, from the handler start to the response.',
});

export const calls = recorder.counter({
  name: 'agentteam.calls',
  unit: '{call}',
  description:
    'Exec actions and MCP tool calls by transport, tool (domain/action for Exec) and outcome (ok or the error code).',
});

const rotations = recorder.counter({
  name: 'agentteam.auth.generations.rotated',
  unit: '{generation}',
  description:
    'Runtime credential generations issued by rotation (scheduled or forced by the operator).',
});

/** Counts one rotation; `forced` when the operator asked for it. */
export function countRotation(forced: boolean): void {
  rotations.add(1, { 'agentteam.rotation.reason': forced ? 'forced' : 'scheduled' });
}

/** What one daemon reports at collection time (a slice of `daemon status`). */
export interface DaemonGauges {
  readonly runtimes: {
    readonly active: number;
    readonly launching: number;
    readonly cleanupDebt: number;
    readonly inFlight: number;
  };
  readonly connections: { readonly open: number; readonly shed: number };
  readonly store: {
    readonly kind: string;
    readonly transactions: number;
    readonly retries: number;
    readonly busy: number;
  };
  readonly clientTools: { readonly pending: number };
}

const point = (value: number, attrs: Attrs = {}) => ({ attrs, value });

/** Registers one daemon's observed values; returns their removal (at stop). */
export function observeDaemon(read: () => DaemonGauges): () => void {
  return recorder.observe((): Observed[] => {
    const g = read();
    const store = { 'db.system.name': g.store.kind === 'postgres' ? 'postgresql' : 'sqlite' };
    return [
      {
        name: 'agentteam.runtimes',
        unit: '{runtime}',
        kind: 'gauge',
        description: 'Runtime authorizations by state.',
        read: () => [
          point(g.runtimes.active, { 'agentteam.runtime.state': 'active' }),
          point(g.runtimes.launching, { 'agentteam.runtime.state': 'launching' }),
          point(g.runtimes.cleanupDebt, { 'agentteam.runtime.state': 'cleanup_retry' }),
        ],
      },
      {
        name: 'agentteam.requests.in_flight',
        unit: '{request}',
        kind: 'gauge',
        description: 'Runtime requests holding an admission slot.',
        read: () => [point(g.runtimes.inFlight)],
      },
      {
        name: 'agentteam.connections.open',
        unit: '{connection}',
        kind: 'gauge',
        description: 'Open HTTP connections to the daemon.',
        read: () => [point(g.connections.open)],
      },
      {
        name: 'agentteam.connections.shed',
        unit: '{connection}',
        kind: 'counter',
        description: 'Connections closed at accept because the connection cap was reached.',
        read: () => [point(g.connections.shed)],
      },
      {
        name: 'agentteam.store.transactions',
        unit: '{transaction}',
        kind: 'counter',
        description: 'Store transactions committed.',
        read: () => [point(g.store.transactions, store)],
      },
      {
        name: 'agentteam.store.retries',
        unit: '{transaction}',
        kind: 'counter',
        description:
          'Store transactions run again after a serialization failure or deadlock (PostgreSQL).',
        read: () => [point(g.store.retries, store)],
      },
      {
        name: 'agentteam.store.busy',
        unit: '{transaction}',
        kind: 'counter',
        description: 'Store transactions that gave up as busy.',
        read: () => [point(g.store.busy, store)],
      },
      {
        name: 'agentteam.client_tools.pending',
        unit: '{call}',
        kind: 'gauge',
        description: 'Client-tool calls waiting for their app.',
        read: () => [point(g.clientTools.pending)],
      },
    ];
  });
}
