import type { Server } from 'node:http';
import { createSecretKey, randomBytes } from 'node:crypto';
import { systemClock } from '../lib/clock.js';
import { ensureHome, homePaths } from '../lib/home.js';
import { defaultCatalog } from '../catalog/index.js';
import { buildApp, buildExecLane } from './app.js';
import { AuthorizationStore, type StoreDeps } from './auth/store.js';
import { createJoseSigner } from './auth/signer.js';
import { createAnalysisTokens } from './auth/analysis-token.js';
import { fsTokenWriter } from './auth/token-file.js';
import { pinCatalog } from './auth/pinned-catalog.js';
import { DEFAULT_TTL_MS } from './auth/limits.js';
import { acquireSingleton } from './lifecycle/singleton.js';
import {
  ensureHomeFolders,
  ensureOperatorToken,
  removeDaemonInfo,
  sweepRuntimeDir,
  writeDaemonInfo,
} from './lifecycle/home-files.js';
import { createDiag, type Diag } from './lifecycle/diag.js';
import { LogTap } from './lifecycle/log-tap.js';
import { parseListen } from './lifecycle/listen.js';
import { checkAllowHosts } from './http/host-origin.js';
import { runtimeUrls } from './http/paths.js';
import { openDaemonParts, type DaemonParts } from './parts.js';
import { connectionBudget } from './http/connection-cap.js';
import { LongLivedStreams, streamCap } from './http/stream-budget.js';
import { openListener, type Listener } from './listener.js';
import { openUnixListener, type UnixListener } from './unix-listener.js';
import type { DaemonOptions } from './daemon-options.js';
import { refuseHomeLinks } from './lifecycle/no-follow.js';
import { processMemory } from './lifecycle/memory.js';
import { daemonSecrets, fixedSource, tokenSource } from './masking/sources.js';
import { routeTable, type RouteEntry } from './results/route-table.js';
import { observeDaemon, type DaemonGauges } from './telemetry/instruments.js';
import { screenTraceState } from './telemetry/tracing.js';

interface RunningDaemon {
  readonly url: string;
  readonly pid: number;
  readonly store: AuthorizationStore;
  stop(reason: string): Promise<void>;
  /** Resolves once an orderly stop has finished (for whatever reason it began). */
  readonly stopped: Promise<void>;
  reload(): Promise<unknown>;
  /** The route table (method, path) in registration order, for tests that walk every route. */
  readonly routes: readonly RouteEntry[];
  /** The daemon's diagnostics (masked, rate-limited), for what its entry point reports. */
  readonly diag: Diag;
  /** How many responses have passed the result gate (tests check every request adds one). */
  readonly gatedResponses: () => number;
}

const DRAIN_MS = 3_000;
const SHUTDOWN_REVOKE_MS = 5_000;
const OWNER_CHECK_MS = 2_000;

/**
 * Starts one daemon for `home`: singleton lock, stale credential sweep,
 * services, HTTP on loopback, daemon.json. Throws AlreadyRunningError when
 * another daemon owns the home, ListenError for a refused address.
 */
export async function startDaemon(opts: DaemonOptions): Promise<RunningDaemon> {
  const { host, port } = parseListen(opts.listen ?? '127.0.0.1:0', opts.allowRemote ?? false);
  const allowHosts = checkAllowHosts(opts.allowHosts ?? [], opts.allowRemote ?? false);
  const clock = opts.clock ?? systemClock;
  const home = ensureHome({ AGENTTEAM_HOME: opts.home });
  const paths = homePaths(home);
  refuseHomeLinks(home);
  const budget = connectionBudget(opts.descriptorLimit);
  const sink = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logs = new LogTap();
  // The values the result gate masks, known before the first log line: the log's writer masks with them too.
  const secrets = daemonSecrets();
  // A caller's tracestate holding one of these values is not continued (spans, upstreams).
  screenTraceState((text) => secrets.matcher().test(text));
  const diag = createDiag(clock, secrets, (line) => {
    logs.push(line);
    sink(line);
  });
  let stopRequested: ((reason: string) => void) | null = null;
  const pendingStop: string[] = [];
  const requestStop = (reason: string) =>
    stopRequested ? stopRequested(reason) : pendingStop.push(reason);

  const singleton = await acquireSingleton(home, (err) => {
    diag('lock_compromised', { error: err.message });
    requestStop('lock_compromised');
  });
  let parts: DaemonParts | null = null;
  let server = null as Server | null;
  let unix: UnixListener | null = null;
  try {
    const operatorToken = ensureOperatorToken(home);
    const swept = sweepRuntimeDir(paths.runtimeDir);
    if (swept > 0) diag('swept_stale_credentials', { count: swept });
    for (const path of ensureHomeFolders(home)) diag('home_folder_is_link', { path });
    // One key signs runtime and token-analysis credentials; their scopes keep them apart.
    const key = opts.key ?? createSecretKey(randomBytes(32));
    let lastStreamShedLog = 0;
    const streams = new LongLivedStreams(streamCap(budget.maxConnections), (e) => {
      if (clock.now() - lastStreamShedLog < 1_000) return;
      lastStreamShedLog = clock.now();
      diag('streams_shed', { total: e.total, max: streams.max, kind: e.kind });
    });
    parts = await openDaemonParts({
      home,
      clock,
      diag,
      idempotency: opts.idempotency,
      store: opts.store,
      holdDeliveryMs: opts.holdDeliveryMs,
      turnStaleMs: opts.turnStaleMs,
      secrets,
      analysis: createAnalysisTokens(key, clock),
      streams,
      logs,
    });
    const defaultTtlMs = opts.defaultTtlMs ?? DEFAULT_TTL_MS;
    const deps: StoreDeps = {
      clock,
      signer: opts.signer ?? createJoseSigner(clock, Math.ceil(defaultTtlMs / 1000), key),
      writer: opts.writer ?? fsTokenWriter,
      runtimeDir: paths.runtimeDir,
      catalog: parts.pinnedCatalog ?? (() => pinCatalog(defaultCatalog())),
      defaultTtlMs,
      diag,
      ...(opts.remover ? { remover: opts.remover } : {}),
      ...(parts.onPublished ? { onPublished: parts.onPublished } : {}),
    };
    const store = new AuthorizationStore(deps);
    parts.gate.secrets.add(tokenSource(store));
    parts.gate.secrets.add(fixedSource('AGENTTEAM_OPERATOR_TOKEN', operatorToken));
    const startedAt = clock.now();
    let url = '';
    let boundPort = 0;
    let conns: Listener['conns'] | undefined;
    const stopping: { p: Promise<void> | null } = { p: null };
    const reload = () => parts!.reload();
    const app = buildApp({
      store,
      operatorToken,
      diag,
      clock,
      listenHost: host,
      port: () => boundPort,
      allowHosts,
      gate: parts.gate,
      devices: parts.devices,
      status: () => ({
        pid: process.pid,
        url,
        startedAt: new Date(startedAt).toISOString(),
        uptimeMs: clock.now() - startedAt,
        stopping: stopping.p !== null,
        connections: {
          open: conns?.open() ?? 0,
          max: budget.maxConnections,
          shed: conns?.shed() ?? 0,
        },
        streams: streams.stats(),
        memory: processMemory(),
        ...store.stats(),
        ...parts!.stats(),
      }),
      stop: (reason) => void stop(reason),
      reload,
      urls: (s, a) => runtimeUrls(url, s, a),
      ...(parts.launchHook ? { launchHook: parts.launchHook } : {}),
      extraRoutes: (a) =>
        parts!.registerRoutes(a, { auths: store, urls: (s, g) => runtimeUrls(url, s, g) }),
    });
    const listener = await openListener({
      fetch: app.fetch,
      lane: buildExecLane(
        { store, diag, listenHost: host, port: () => boundPort, allowHosts },
        parts.services,
      ),
      host,
      port,
      home,
      budget,
      streams,
      clock,
      diag,
      opened: (srv) => (server = srv),
    });
    const srv = listener.server;
    conns = listener.conns;
    boundPort = listener.port;
    url = listener.url;
    diag('connection_budget', { ...budget });
    // The same operator API for apps on this machine, on an owner-only socket in the home.
    unix = await openUnixListener({
      fetch: app.fetch as (req: Request, env: unknown) => Response,
      dir: paths.socketDir,
      path: paths.socket,
      budget,
      clock,
      diag,
    });
    const unobserve = observeDaemon(() => {
      const s = parts!.stats() as {
        store: DaemonGauges['store'];
        clientTools: DaemonGauges['clientTools'];
      };
      return {
        runtimes: store.stats(),
        connections: { open: conns?.open() ?? 0, shed: conns?.shed() ?? 0 },
        store: s.store,
        clientTools: s.clientTools,
      };
    });

    let resolveStopped!: () => void;
    const stopped = new Promise<void>((r) => (resolveStopped = r));
    // Only a record naming another live daemon stops us; a failed read (EMFILE under a flood) is retried next tick.
    const ownerCheck = setInterval(() => {
      const o = singleton.check();
      if (o.state === 'lost') {
        diag('ownership_lost', { pid: o.pid });
        void stop('ownership_lost');
      } else if (o.state === 'unknown')
        diag('owner_check_inconclusive', { reason: o.reason, repaired: o.repaired });
    }, OWNER_CHECK_MS);
    ownerCheck.unref();

    /** Orderly stop: renewals and access end first, then in-flight work drains, then files and lock go. */
    function stop(reason: string): Promise<void> {
      stopping.p ??= (async () => {
        diag('stopping', { reason });
        clearInterval(ownerCheck);
        unobserve();
        await withTimeout(store.shutdown(), SHUTDOWN_REVOKE_MS);
        const drainUntil = Date.now() + DRAIN_MS;
        while (store.stats().inFlight > 0 && Date.now() < drainUntil)
          await new Promise((r) => setTimeout(r, 20));
        await Promise.all([
          new Promise<void>((r) => {
            srv.close(() => r());
            srv.closeAllConnections();
          }),
          unix?.close(),
        ]);
        await parts!.close();
        removeDaemonInfo(home, process.pid);
        await singleton.release();
        diag('stopped', { reason });
        resolveStopped();
      })();
      return stopping.p;
    }
    stopRequested = (reason) => void stop(reason);
    for (const r of pendingStop) void stop(r);

    if (!singleton.verify()) {
      await stop('ownership_lost');
      throw new Error('lost daemon ownership while starting');
    }
    writeDaemonInfo(home, { url, pid: process.pid, startedAt });
    return {
      url,
      pid: process.pid,
      store,
      stop,
      stopped,
      reload,
      routes: routeTable(app.routes),
      diag,
      gatedResponses: () => parts!.gate.responses,
    };
  } catch (err) {
    if (server && !stopRequested) server.close();
    if (unix && !stopRequested) await unix.close();
    if (!stopRequested) {
      await parts?.close().catch(() => undefined);
      await singleton.release();
    }
    throw err;
  }
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((r) => (t = setTimeout(r, ms)))]);
  clearTimeout(t);
}
