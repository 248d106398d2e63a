import { operatorRoute } from './route.js';

/** The daemon itself: status, stop, reload, its recent diagnostic lines, the console's sign-in code. */

const anyObject = { type: 'object' } as const;

export const daemonStatus = operatorRoute({
  name: 'daemon.status',
  method: 'GET',
  path: '/api/v1/status',
  summary: 'What the daemon runs: version, listen address, store, client tools, audit, streams.',
  permission: 'operator',
  output: anyObject,
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
  output: anyObject,
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
