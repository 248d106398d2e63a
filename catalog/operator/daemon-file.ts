import type { FromSchema } from 'json-schema-to-ts';

/**
 * `$AGENTTEAM_HOME/daemon.json`, the one file through which the CLI finds a
 * running daemon: where it listens, which process it is, when it started.
 * The daemon writes it after it listens and removes it when it stops.
 */
const daemonFileSchema = {
  type: 'object',
  required: ['url', 'pid', 'startedAt'],
  properties: {
    /** `http://127.0.0.1:<port>`: the base of the operator API and the runtime routes. */
    url: { type: 'string' },
    pid: { type: 'integer' },
    /** Epoch milliseconds. */
    startedAt: { type: 'number' },
  },
} as const;

export type DaemonFile = FromSchema<typeof daemonFileSchema>;
