import { operatorRoute } from './route.js';
import { declarationReportSchema } from './tools.js';

/** The daemon itself: status, stop, reload, its recent diagnostic lines, the console's sign-in code. */

const count = { type: 'integer', minimum: 0 } as const;
const counts = <const K extends readonly string[]>(keys: K) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: keys,
    properties: Object.fromEntries(keys.map((k) => [k, count])) as {
      [P in K[number]]: typeof count;
    },
  }) as const;

/** A budget: how many are open, the cap, and how many were turned away since start. */
const budget = counts(['open', 'max', 'shed'] as const);

const auditStatus = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: [
        'enabled',
        'recordPayloads',
        'queued',
        'written',
        'dropped',
        'trimmed',
        'failedWrites',
      ],
      properties: {
        enabled: { const: true },
        recordPayloads: { type: 'boolean' },
        queued: count,
        written: count,
        dropped: count,
        trimmed: count,
        failedWrites: count,
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['enabled'],
      properties: { enabled: { const: false } },
    },
  ],
} as const;

/** What `daemon status` shows; the daemon's parts fill `store`, `clientTools` and `audit`. */
const statusSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'pid',
    'url',
    'startedAt',
    'uptimeMs',
    'stopping',
    'connections',
    'streams',
    'memory',
    'active',
    'launching',
    'cleanupDebt',
    'leases',
    'inFlight',
    'store',
    'clientTools',
    'audit',
  ],
  properties: {
    pid: { type: 'integer' },
    url: { type: 'string' },
    startedAt: { type: 'string' },
    uptimeMs: { type: 'number' },
    stopping: { type: 'boolean' },
    connections: budget,
    streams: budget,
    memory: {
      ...counts(['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const),
      description: 'Process memory in bytes.',
    },
    // Runtime authorizations by state, all leases, and the calls in flight.
    active: count,
    launching: count,
    cleanupDebt: count,
    leases: count,
    inFlight: count,
    store: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'location', 'transactions', 'retries', 'busy'],
      properties: {
        kind: { enum: ['sqlite', 'postgres'] },
        location: {
          type: 'string',
          description: 'The file, or the PostgreSQL host and database (never a password).',
        },
        transactions: count,
        retries: count,
        busy: count,
      },
    },
    clientTools: counts(['clients', 'groups', 'tools', 'pending'] as const),
    audit: auditStatus,
  },
} as const;

export const daemonStatus = operatorRoute({
  name: 'daemon.status',
  method: 'GET',
  path: '/api/v1/status',
  summary:
    'What the daemon runs: listen address, connections, streams, memory, leases, store, client tools, audit.',
  permission: 'operator',
  output: statusSchema,
});

export const daemonStop = operatorRoute({
  name: 'daemon.stop',
  method: 'POST',
  path: '/api/v1/stop',
  summary: 'Starts an orderly stop after the answer has been sent.',
  permission: 'operator',
  status: 202,
  output: {
    type: 'object',
    required: ['stopping'],
    properties: { stopping: { const: true } },
  },
});

export const daemonReload = operatorRoute({
  name: 'daemon.reload',
  method: 'POST',
  path: '/api/v1/reload',
  summary: 'Reads the profile and the tool declarations again.',
  permission: 'operator',
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'revision', 'tools'],
    properties: {
      ok: {
        type: 'boolean',
        description: 'False when the profile was refused; the previous one stays.',
      },
      revision: { type: 'string', description: "The profile collection's revision." },
      error: { type: 'string', description: 'Why the profile was refused.' },
      tools: {
        type: 'object',
        additionalProperties: false,
        required: ['loaded', 'problems'],
        properties: {
          loaded: declarationReportSchema.properties.loaded,
          problems: declarationReportSchema.properties.problems,
        },
      },
    },
  },
});

/** Lines kept by the daemon's log tap; a request asks for 1 to this many. */
export const LOG_TAP_LINES = 1000;

export const daemonLogs = operatorRoute({
  name: 'daemon.logs',
  method: 'GET',
  path: '/api/v1/logs',
  summary: 'The last diagnostic lines (default 100, at most 1000), oldest first.',
  permission: 'operator',
  invalid: 'invalid_request',
  query: {
    type: 'object',
    additionalProperties: false,
    properties: { limit: { type: 'string', pattern: '^(1000|[1-9][0-9]{0,2})$' } },
  },
  output: {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['n', 'line'],
          properties: { n: { type: 'integer' }, line: { type: 'string' } },
        },
      },
    },
  },
});

export const consoleCode = operatorRoute({
  name: 'console.code',
  method: 'POST',
  path: '/api/v1/console/codes',
  summary: 'A one-time sign-in link for the console.',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['url', 'expiresAt'],
    properties: { url: { type: 'string' }, expiresAt: { type: 'string' } },
  },
});

/** Longest backup path accepted (Linux PATH_MAX). */
export const BACKUP_PATH_MAX_BYTES = 4096;

export const storeBackup = operatorRoute({
  name: 'store.backup',
  method: 'POST',
  path: '/api/v1/store/backup',
  summary: "A consistent copy of the SQLite team store, taken through the daemon's connection.",
  permission: 'operator',
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['path'],
    properties: {
      path: { type: 'string', minLength: 1, maxLength: BACKUP_PATH_MAX_BYTES },
      overwrite: { type: 'boolean' },
    },
  },
  output: {
    type: 'object',
    required: ['via'],
    properties: { via: { const: 'daemon' } },
  },
});

export const analysisCredential = operatorRoute({
  name: 'analysis.credential',
  method: 'POST',
  path: '/api/v1/token-analysis/credentials',
  summary: 'A short-lived credential for the token-analysis surface.',
  permission: 'operator',
  status: 201,
  output: {
    type: 'object',
    required: ['token'],
    properties: { token: { type: 'string' }, expiresAt: { type: 'string' } },
  },
});
