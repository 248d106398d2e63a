import type { FromSchema } from 'json-schema-to-ts';
import { ENTITY_ID_PATTERN } from '../ids.js';
import { MESSAGE_ID_PATTERN, TARGET_PATTERN } from '../mcp-tools.js';
import { RUNTIME_KINDS } from '../runtimes.js';

/**
 * The CLI↔daemon wire shapes of a runtime lease (`POST /api/v1/runtimes`),
 * written once: what `run` asks for, the first NDJSON line that describes the
 * new authorization (paths and URLs, never a token), and the last line that
 * says why the daemon revoked it.
 */

const nullableId = { type: ['string', 'null'], pattern: ENTITY_ID_PATTERN } as const;

export const leaseRequestSchema = {
  type: 'object',
  required: ['serverId', 'agentId'],
  properties: {
    serverId: { type: 'string' },
    agentId: { type: 'string' },
    // A label only (`run --session`); the daemon mints the session and run ids a lease's calls carry.
    sessionName: nullableId,
    workdir: { type: ['string', 'null'] },
    primaryThreadId: { type: ['string', 'null'] },
    ttlSeconds: { type: 'integer', minimum: 1 },
    runtime: { enum: RUNTIME_KINDS },
    turnTarget: { type: ['string', 'null'], pattern: TARGET_PATTERN },
    turnMessageId: { type: ['string', 'null'], pattern: MESSAGE_ID_PATTERN },
    pid: { type: 'integer' },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    /** The runtime's `--version` output as `run` read it (Codex), for choosing what its config may use. */
    runtimeVersion: { type: ['string', 'null'], maxLength: 200 },
    /** Re-lease after a daemon restart: the private directory name the runtime's token file path has. */
    resumeDir: { type: 'string' },
    /** The first lease's `resumeSecret`, which proves the claim on `resumeDir`. */
    resumeSecret: { type: 'string' },
  },
} as const;

export const leaseLineSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'authorizationId',
    'sessionId',
    'runId',
    'privateDir',
    'tokenFile',
    'execBaseUrl',
    'mcpUrl',
    'ttlSeconds',
    'env',
    'args',
  ],
  properties: {
    authorizationId: { type: 'string' },
    /** The session and run ids the daemon minted for this lease (its calls carry them). */
    sessionId: { type: 'string' },
    runId: { type: 'string' },
    privateDir: { type: 'string' },
    tokenFile: { type: 'string' },
    /** Proves a later re-lease of this runtime's directory comes from the same `run`; never passed on. */
    resumeSecret: { type: 'string' },
    execBaseUrl: { type: 'string' },
    mcpUrl: { type: 'string' },
    ttlSeconds: { type: 'number' },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    args: { type: 'array', items: { type: 'string' } },
    /** The executable `args` belong to; `run` puts `shimDir` on PATH when it wraps another command. */
    argsFor: { type: 'string' },
    shimDir: { type: 'string' },
    /** A variable `run` sets to the current token when it starts the runtime directly. */
    tokenEnv: { type: 'string' },
    /** The private directory with the `agentteam` launcher; `run` puts it first on PATH. */
    binDir: { type: 'string' },
  },
} as const;

/** The last line: why the lease ended (`shutdown`, `replaced`, `exit`, ...). */
export const leaseEndSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'reason'],
  properties: { event: { const: 'revoked' }, reason: { type: 'string' } },
} as const;

export type LeaseRequest = FromSchema<typeof leaseRequestSchema>;
export type LeaseLine = FromSchema<typeof leaseLineSchema>;
export type LeaseEnd = FromSchema<typeof leaseEndSchema>;
