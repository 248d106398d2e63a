import { closeSync, readFileSync } from 'node:fs';
import { ensureHome, homePaths, HomeError } from '../lib/home.js';
import { AlreadyRunningError } from './lifecycle/singleton.js';
import { ListenError } from './lifecycle/listen.js';
import { appendFileNoFollow } from './lifecycle/no-follow.js';
import { parseStoreUrl, StoreUrlError, type StoreUrl } from '../lib/store-url.js';
import { startTelemetry } from './telemetry/start.js';
import { shortenUpstreamDeadline } from './extensions/forward.js';

/**
 * The daemon process entry (spawned by `agentteam daemon start`, never
 * imported by the CLI). Prints exactly one ready line on stdout. With
 * --detached its pipes are closed by the starter after that line, so later
 * diagnostics go to daemon.log.
 */
async function main(argv: string[]): Promise<number> {
  // The daemon writes only private state (store, daemon.json, token files, driver configs):
  // owner-only whatever umask the operator's shell had.
  process.umask(0o077);
  // A daemon started from inside a runtime must not carry that runtime's credential variables.
  for (const k of Object.keys(process.env))
    if (/^agentteam_(exec|mcp)_/i.test(k)) delete process.env[k];
  // The store URL carries the database password. `daemon start` sends it on fd 3 (so it is in neither
  // this process's command line nor its environment); started some other way, the variable is read once
  // and removed, so no child inherits it.
  const storeRaw = argv.includes('--store-fd')
    ? readStoreFd(Number(argv[argv.indexOf('--store-fd') + 1]))
    : process.env.AGENTTEAM_STORE_URL;
  delete process.env.AGENTTEAM_STORE_URL;
  let store: StoreUrl | undefined;
  try {
    store = storeRaw === undefined || storeRaw === '' ? undefined : parseStoreUrl(storeRaw);
  } catch (err) {
    if (!(err instanceof StoreUrlError)) throw err;
    process.stderr.write(`agentteam: ${err.message}\n`);
    return 2;
  }
  const flag = (name: string) => argv.includes(name);
  const listenAt = argv.indexOf('--listen');
  const listen = listenAt >= 0 ? argv[listenAt + 1] : undefined;
  const detached = flag('--detached');
  const allowHosts = argv.flatMap((a, i) => (argv[i - 1] === '--allow-host' ? [a] : []));
  // The home first, before the server's modules load: an unusable one is refused at once, in one line.
  let home: string;
  try {
    home = ensureHome();
  } catch (err) {
    if (!(err instanceof HomeError)) throw err;
    process.stderr.write(`agentteam: ${err.message}\n`);
    return 2;
  }
  const { startDaemon } = await import('./server.js');
  let ready = false;
  // After detaching, writes to the closed pipes must not crash the daemon.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  const log = (line: string) => {
    if (detached && ready) {
      try {
        appendFileNoFollow(homePaths(home).log, `${line}\n`);
      } catch {
        // diagnostics are best effort
      }
    } else process.stderr.write(`${line}\n`);
  };
  // OTLP export only when the OTEL_* variables name an endpoint; the SDK is not even loaded otherwise.
  const telemetry = await startTelemetry(process.env, (event, fields) =>
    log(JSON.stringify({ event, ...fields })),
  );
  extensionDeadline();
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      home,
      ...(listen ? { listen } : {}),
      ...(store ? { store } : {}),
      ...holdDelivery(),
      ...turnStale(),
      allowRemote: flag('--allow-remote'),
      allowHosts,
      log,
    });
  } catch (err) {
    if (err instanceof AlreadyRunningError) {
      process.stderr.write(
        `agentteam: daemon already running for ${home}${err.pid ? ` (pid ${err.pid})` : ' (another daemon is starting)'}\n`,
      );
      return 1;
    }
    if (err instanceof HomeError) {
      process.stderr.write(`agentteam: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ListenError) {
      process.stderr.write(`agentteam: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const onSignal = (sig: NodeJS.Signals) => () => void daemon.stop(sig);
  process.on('SIGTERM', onSignal('SIGTERM'));
  process.on('SIGINT', onSignal('SIGINT'));
  process.on('SIGHUP', () => {
    daemon.reload().catch((err: unknown) => daemon.diag('reload_failed', { error: String(err) }));
  });
  process.stdout.write(`${JSON.stringify({ url: daemon.url, pid: daemon.pid })}\n`);
  ready = true;
  await daemon.stopped;
  await telemetry?.shutdown();
  return 0;
}

/** Reads the whole store URL from the pipe `daemon start` opened on `fd`, then closes it. */
function readStoreFd(fd: number): string {
  if (!Number.isInteger(fd) || fd < 3)
    throw new StoreUrlError('--store-fd needs a file descriptor number of 3 or more');
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * A fault-injection point for the shared-store tests (a daemon killed while it
 * holds a due schedule): AGENTTEAM_FAULT_HOLD_DELIVERY_MS keeps each
 * scheduled delivery's transaction open that long before it commits.
 */
function holdDelivery(): { holdDeliveryMs?: number } {
  const ms = Number(process.env.AGENTTEAM_FAULT_HOLD_DELIVERY_MS ?? '');
  delete process.env.AGENTTEAM_FAULT_HOLD_DELIVERY_MS;
  return Number.isInteger(ms) && ms > 0 && ms <= 600_000 ? { holdDeliveryMs: ms } : {};
}

/**
 * A test timing for the shared-store turn tests (a daemon killed mid-turn):
 * AGENTTEAM_TEST_TURN_STALE_MS shortens how long a running turn may go
 * without its daemon's heartbeat before another daemon marks it interrupted.
 */
function turnStale(): { turnStaleMs?: number } {
  const ms = Number(process.env.AGENTTEAM_TEST_TURN_STALE_MS ?? '');
  delete process.env.AGENTTEAM_TEST_TURN_STALE_MS;
  return Number.isInteger(ms) && ms >= 500 && ms <= 600_000 ? { turnStaleMs: ms } : {};
}

/** A test timing: AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS shortens a forwarded extension call's deadline. */
function extensionDeadline(): void {
  const ms = Number(process.env.AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS ?? '');
  delete process.env.AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS;
  if (Number.isInteger(ms) && ms >= 500) shortenUpstreamDeadline(ms);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `agentteam: daemon failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
