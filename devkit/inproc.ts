import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { AuthorizationStore } from '../daemon/auth/store.js';
import { createJoseSigner } from '../daemon/auth/signer.js';
import { fsTokenWriter } from '../daemon/auth/token-file.js';
import { removeDir } from '../daemon/auth/private-dir.js';
import type { PinnedCatalog } from '../daemon/auth/pinned-catalog.js';
import { buildApp } from '../daemon/app.js';
import { openDaemonParts } from '../daemon/parts.js';
import { daemonSecrets } from '../daemon/masking/sources.js';
import type { Services } from '../daemon/services.js';
import type { NativeApprovals } from '../daemon/approvals/native.js';
import { systemClock } from '../lib/clock.js';
import { FakeClock } from './auth-clock.js';
import { parseStoreUrl } from '../lib/store-url.js';
import { freshDatabase } from './pg.js';
import type { AuditSettings } from '../daemon/audit/settings.js';

/**
 * The daemon's real app in process, opened through the daemon's own start-up
 * (openDaemonParts: services, Exec and MCP routes, client tools, declared
 * tools) with a fake clock for the services: for tests of time-dependent
 * domains (schedules, expiry) that must not wait for wall-clock time.
 * Credentials keep the real clock, as in the daemon.
 */
export interface InProc {
  readonly home: string;
  readonly clock: FakeClock;
  readonly services: Services;
  /** The runtimes' approvals inbox of these parts (what the operator routes decide through). */
  readonly approvals: NativeApprovals;
  readonly store: AuthorizationStore;
  /** Moves the fake clock, letting each scheduler tick it fires (and the re-arm after it) finish before time moves on. */
  advance(ms: number): Promise<void>;
  runtime(
    serverId?: string,
    agentId?: string,
    extra?: { primaryThreadId?: string },
  ): Promise<Caller>;
  /** The app (auth, Exec route) for requests the Caller does not shape. */
  readonly app: { request(path: string, init: RequestInit): Response | Promise<Response> };
}

export interface Reply {
  status: number;
  json: any;
}

export type Caller = (
  domain: string,
  action: string,
  input: unknown,
  headers?: Record<string, string>,
) => Promise<Reply>;

export interface InProcOptions {
  readonly catalog?: () => PinnedCatalog;
  /** A PostgreSQL URL: the team store lives there instead of the home's SQLite file. */
  readonly store?: string;
  /** A second "daemon" on the SQLite store file of this one (its own home, connection, credentials and clock). */
  readonly shareStoreOf?: InProc;
  /** The audit trail's settings (default: the defaults, on). */
  readonly audit?: AuditSettings;
}

export async function startInProc(t: TestContext, opts: InProcOptions = {}): Promise<InProc> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-inproc-'));
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  // AGENTTEAM_TEST_STORE=postgres runs every in-process suite on a fresh PostgreSQL database instead of SQLite.
  const storeUrl =
    opts.store ??
    (process.env.AGENTTEAM_TEST_STORE === 'postgres' && !opts.shareStoreOf
      ? await freshDatabase()
      : undefined);
  const parts = await openDaemonParts({
    home,
    clock,
    diag: () => {},
    secrets: daemonSecrets(),
    ...(storeUrl ? { store: parseStoreUrl(storeUrl) } : {}),
    ...(opts.shareStoreOf ? { sqlitePath: join(opts.shareStoreOf.home, 'store.db') } : {}),
    ...(opts.audit ? { audit: opts.audit } : {}),
  });
  const services = parts.services;
  const store = new AuthorizationStore({
    clock: systemClock,
    signer: createJoseSigner(systemClock, 12 * 3600),
    writer: fsTokenWriter,
    remover: removeDir,
    runtimeDir: join(home, 'runtime'),
    catalog: opts.catalog ?? parts.pinnedCatalog!,
  });
  t.after(async () => {
    await store.shutdown();
    await parts.close();
    rmSync(home, { recursive: true, force: true });
  });
  const app = buildApp({
    store,
    operatorToken: 'op',
    listenHost: '127.0.0.1',
    port: () => 80,
    gate: parts.gate,
    diag: () => {},
    status: () => ({}),
    stop: () => {},
    reload: async () => ({}),
    urls: () => ({ execBaseUrl: '', mcpUrl: '' }),
    extraRoutes: (a) =>
      parts.registerRoutes(a, { auths: store, urls: () => ({ execBaseUrl: '', mcpUrl: '' }) }),
  });
  return {
    home,
    clock,
    services,
    approvals: parts.approvals,
    store,
    app,
    advance: (ms) => clock.advanceAsync(ms, () => services.scheduler.idle()),
    async runtime(serverId = 's1', agentId = 'a1', extra = {}) {
      const auth = await store.create({ serverId, agentId, ttlMs: 3_600_000, ...extra });
      const token = readFileSync(auth.tokenFile, 'utf8').trim();
      return async (domain, action, input, headers = {}) => {
        const res = await app.request(
          `/api/internal/exec/servers/${serverId}/agents/${agentId}/${domain}/${action}`,
          {
            method: 'POST',
            headers: {
              host: '127.0.0.1:80',
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              ...headers,
            },
            body: JSON.stringify(input),
          },
        );
        return { status: res.status, json: await res.json() };
      };
    },
  };
}

/** Asserts the tampered / foreign / filter-mismatched cursor cases every collection must reject. */
export async function cursorCases(
  call: Caller,
  other: Caller,
  domain: string,
  action: string,
  base: Record<string, unknown>,
  cursor: string,
  mismatched: Record<string, unknown>,
): Promise<string[]> {
  const [body = '', mac = ''] = cursor.split('.');
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
  const edited = Buffer.from(JSON.stringify({ ...decoded, k: [...decoded.k].reverse() })).toString(
    'base64url',
  );
  const cases: [string, Caller, Record<string, unknown>][] = [
    ['edited keyset', call, { ...base, cursor: `${edited}.${mac}` }],
    ['flipped signature', call, { ...base, cursor: `${body}.${flip(mac)}` }],
    ['filter mismatch', call, { ...mismatched, cursor }],
    ['other server', other, { ...base, cursor }],
    ['other collection', call, { cursor }],
    ['not base64', call, { ...base, cursor: '%%%' }],
    ['no signature', call, { ...base, cursor: body }],
  ];
  const failures: string[] = [];
  for (const [name, who, input] of cases) {
    // The other collection is task list: every store cursor is signed by one key, so only the binding tells them apart.
    const r =
      name === 'other collection'
        ? await who('task', 'list', input)
        : await who(domain, action, input);
    const paths = (r.json?.error?.details ?? []).map((x: { path: string }) => x.path);
    if (
      r.status !== 400 ||
      r.json?.error?.code !== 'validation_failed' ||
      paths.join() !== '/cursor'
    ) {
      failures.push(`${name}: ${r.status} ${JSON.stringify(r.json)}`);
    }
  }
  return failures;
}
