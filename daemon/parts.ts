import type { Hono } from 'hono';
import type { RuntimeEnv } from './auth/principal.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { Authorization } from './auth/authorization.js';
import type { Diag } from './lifecycle/diag.js';
import { runtimeLaunchHook } from './runtime-launch.js';
import { profilePerson } from './profile/person.js';
import type { LaunchHook } from './drivers/launch-hook.js';
import { selectAgentteamBinary } from './drivers/binary.js';
import { openServices, type Services } from './services.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import type { ResultGate } from './results/gate.js';
import type { SecretSet } from './masking/secrets.js';
import { registerExecActionRoute } from './exec/route.js';
import { registerNativeApprovalRoute } from './exec/native-approval.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { codexAppServerHandlers } from './operator/codex-app-server.js';
import type { AuthorizationStore } from './auth/store.js';
import { messageOperatorHandlers } from './operator/messages.js';
import { conversationOperatorHandlers } from './operator/conversations.js';
import { turnOperatorHandlers } from './operator/turns.js';
import { stdioSessionHandlers } from './operator/stdio-sessions.js';
import { openTurns } from './turns/part.js';
import type { TurnRunner } from './turns/runner.js';
import { registerTokenAnalysisRoutes } from './analysis/routes.js';
import type { AnalysisTokens } from './auth/analysis-token.js';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { approvalOperatorHandlers } from './operator/approvals.js';
import { openNativeApprovals } from './native-approvals.js';
import type { NativeApprovals } from './approvals/native.js';
import { operatorReadHandlers } from './operator/reads.js';
import { operatorWriteHandlers } from './operator/writes.js';
import { TaskAssignments } from './operator/task-assignment.js';
import { extensionOperatorHandlers } from './operator/extensions.js';
import { pinCatalog, type PinnedCatalog } from './auth/pinned-catalog.js';
import { isDenyable, openClientTools, rememberedClientTools } from './clienttools/part.js';
import type { LongLivedStreams } from './http/stream-budget.js';
import { storeOperatorHandlers } from './operator/store-routes.js';
import { homePaths } from '../lib/home.js';
import { connectOperatorFeed } from './operator-feed.js';
import { DeclaredTools } from './tools/declarations.js';
import { toolOperatorHandlers } from './tools/operator-routes.js';
import { ToolsDirWatch } from './tools/watch.js';
import { formatIssue, readDeclarationFiles } from '../lib/tool-files.js';
import type { StoreUrl } from '../lib/store-url.js';
import type { LogTap } from './lifecycle/log-tap.js';
import { auditOperatorHandlers } from './operator/audit-routes.js';
import { PairedDevices } from './operator/devices.js';
import { absentRoute } from './http/operator-dispatch.js';
import type { PartOperatorHandlers } from './app.js';
import type { AuditSettings } from './audit/settings.js';

/** What the server gives the parts once it has them: the authorizations and the runtime URLs. */
interface PartContext {
  readonly auths: AuthorizationStore;
  readonly urls: (serverId: string, agentId: string) => { execBaseUrl: string; mcpUrl: string };
}

/**
 * The parts of the daemon owned by other modules (services, Exec action
 * route, MCP, runtime drivers), opened at start and closed at stop. Keeping
 * them behind this one seam keeps server.ts about lifecycle only.
 */
export interface DaemonParts {
  /** Registers the runtime routes (Exec, MCP, token analysis) and answers with the parts' rows of the operator API. */
  registerRoutes(app: Hono<RuntimeEnv>, ctx: PartContext): PartOperatorHandlers;
  /** The result gate; the server adds the token and operator-token secret sources once the store exists. */
  readonly gate: ResultGate;
  /** What the routes are built on (the in-process test harness reads the scheduler and the stores through it). */
  readonly services: Services;
  /** Paired devices: the app checks their tokens; the rows pair, exchange, list and revoke. */
  readonly devices: PairedDevices;
  /** The one inbox for the runtimes' own permission prompts (drivers and hooks ask it). */
  readonly approvals: NativeApprovals;
  readonly launchHook?: LaunchHook;
  readonly onPublished?: (auth: Authorization) => void;
  /** The catalog a new authorization pins: built-ins plus the extensions installed now. */
  readonly pinnedCatalog?: () => PinnedCatalog;
  reload(): Promise<unknown>;
  /** Extra fields of `daemon status` (client tools: clients, groups, tools, pending calls). */
  stats(): Record<string, unknown>;
  close(): Promise<void>;
}

interface DaemonPartsOptions {
  home: string;
  clock: Clock;
  diag: Diag;
  /** What the result gate masks (the daemon's log masks with the same set). */
  secrets: SecretSet;
  idempotency?: IdempotencyLimits | undefined;
  /** A shared PostgreSQL team store (default: the embedded SQLite file). */
  store?: StoreUrl | undefined;
  /** Test fault point: hold each scheduled delivery's transaction open this long before it commits. */
  holdDeliveryMs?: number | undefined;
  /** Test timing: a running turn without a heartbeat for this long is interrupted (default 30 s). */
  turnStaleMs?: number | undefined;
  analysis?: AnalysisTokens;
  /** The daemon-wide budget of long-lived streams (sized from the connection cap). */
  streams?: LongLivedStreams;
  /** The daemon's recent diagnostics, for `daemon logs` (GET /api/v1/logs and `daemon.log` events). */
  logs?: LogTap;
  /** Tests only: open the SQLite store of another home (a second in-process "daemon" on one file). */
  sqlitePath?: string | undefined;
  /** The audit trail's settings; default: $AGENTTEAM_HOME/audit.json. */
  audit?: AuditSettings | undefined;
}

export async function openDaemonParts(opts: DaemonPartsOptions): Promise<DaemonParts> {
  // Before anything is opened: a build without the CLI bundle cannot give runtimes their `agentteam`.
  const agentteam = selectAgentteamBinary();
  const remembered = rememberedClientTools(opts.home, (message) =>
    opts.diag('client_tools', { message }),
  );
  // denyTools may name declared tools too: their names are read before the profile is parsed.
  const toolsDir = homePaths(opts.home).tools;
  const declaredNames = new Set(readDeclarationFiles(toolsDir, []).map((d) => d.decl.name));
  const clientDenyable = isDenyable(remembered);
  const services = await openServices({
    home: opts.home,
    clock: opts.clock,
    secrets: opts.secrets,
    log: (message) => opts.diag('profile', { message }),
    diag: opts.diag,
    denyable: (name) => clientDenyable(name) || declaredNames.has(name),
    ...(opts.idempotency ? { idempotency: opts.idempotency } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.holdDeliveryMs ? { holdDeliveryMs: opts.holdDeliveryMs } : {}),
    ...(opts.sqlitePath ? { sqlitePath: opts.sqlitePath } : {}),
    ...(opts.audit ? { audit: opts.audit } : {}),
  });
  const clientTools = openClientTools({
    home: opts.home,
    clock: opts.clock,
    registry: services.tools,
    profile: services.profile,
    remembered,
    gate: services.gate,
    delegations: services.delegatedScopes,
    log: (message) => opts.diag('client_tools', { message }),
    ...(opts.streams ? { streams: opts.streams } : {}),
  });
  const approvals = openNativeApprovals(services);
  await services.registry.useGeneratedValidators();
  // Catch-up for what fell due while no daemon ran, then the timer.
  await services.scheduler.start();
  // Declared tools' activity, committed store writes and log lines, onto the operator event stream.
  const activity = connectOperatorFeed(services, (e) => clientTools.streams.publish(e), opts.logs);
  const declared = new DeclaredTools(toolsDir, services.tools, {
    gate: services.gate,
    activity,
    env: process.env,
    toolsDir,
  });
  const loadDeclared = () => {
    const report = declared.load();
    declaredNames.clear();
    for (const d of report.loaded) declaredNames.add(d.name);
    for (const p of report.problems) opts.diag('tool_declaration', { problem: formatIssue(p) });
    return { loaded: report.loaded, problems: report.problems };
  };
  // Taken before the first load, so a change made while it runs is seen as one.
  // Real time, not the injected clock: that clock drives token lifetimes and schedules (tests advance
  // it timer by timer), while how often a folder is looked at is plumbing that must not add timers to it.
  const watchTools = new ToolsDirWatch(
    toolsDir,
    systemClock,
    () => {
      const { loaded, problems } = loadDeclared();
      opts.diag('tools_reloaded', {
        trigger: 'watch',
        loaded: loaded.length,
        problems: problems.length,
      });
    },
    (message) => opts.diag('tools_watch', { message }),
  );
  let runner: TurnRunner | null = null;
  const launchHook = runtimeLaunchHook(opts.home, agentteam);
  const person = () => profilePerson(services.profile.profile);
  const devices = new PairedDevices(services.devices, services.instance, opts.clock);
  return {
    gate: services.gate,
    services,
    devices,
    approvals,
    registerRoutes: (app, ctx) => {
      registerExecActionRoute(app, services);
      registerNativeApprovalRoute(app, approvals, services);
      const mcpHost = registerMcpRoutes(app, {
        messages: services.messages,
        knowledge: services.knowledge,
        clock: services.clock,
        gate: services.gate,
        tools: services.tools,
        audit: services.audit,
        hiddenFor: clientTools.hiddenFor,
        notifier: clientTools.notifier,
        ...(opts.streams ? { streams: opts.streams } : {}),
      });
      const host = clientTools.delegating(mcpHost);
      const analysis = opts.analysis
        ? registerTokenAnalysisRoutes(app, opts.analysis, MCP_TOOLS)
        : { 'analysis.credential': absentRoute };
      const logs = opts.logs;
      const turns = openTurns({
        turns: services.turns,
        lookup: services.knowledge.turns,
        profile: () => services.profile.profile,
        auths: ctx.auths,
        launchHook,
        urls: ctx.urls,
        home: opts.home,
        owner: services.instance,
        clock: opts.clock,
        publish: (event) => clientTools.streams.publish(event),
        diag: opts.diag,
        shared: opts.store !== undefined,
        staleMs: opts.turnStaleMs,
        tools: { host, gate: services.gate, approvals },
        messages: services.messages,
        clients: {
          check: (id, key) => clientTools.broker.checkOwn(id, key),
          onDisconnect: (fn) => clientTools.onDisconnect(fn),
        },
      });
      runner = turns.runner;
      void runner
        .start()
        .catch((err: Error) => opts.diag('turns_start_failed', { message: err.message }));
      // After the built-ins are registered (registerMcpRoutes): declarations may not take their names.
      loadDeclared();
      watchTools.start();
      return {
        ...codexAppServerHandlers({ auths: ctx.auths, host, gate: services.gate, diag: opts.diag }),
        ...messageOperatorHandlers(services.messages, turns.service, person),
        ...conversationOperatorHandlers(services.conversations, () => services.profile.profile),
        ...turnOperatorHandlers(turns.service),
        ...stdioSessionHandlers(turns.stdio),
        ...analysis,
        ...approvalOperatorHandlers(approvals, person, services.audit),
        ...operatorReadHandlers(services),
        ...operatorWriteHandlers({
          ...services,
          now: () => opts.clock.now(),
          assignments: new TaskAssignments(services.messages, turns.service, (id) =>
            services.profile.profile.agents.some((a) => a.id === id),
          ),
        }),
        'daemon.logs': logs
          ? ({ query }) => ({
              entries: logs.recent(query.limit !== undefined ? Number(query.limit) : undefined),
            })
          : absentRoute,
        ...extensionOperatorHandlers(services.extensions),
        ...clientTools.operatorHandlers(),
        ...storeOperatorHandlers(services.sqlite, services.home, services.store.describe),
        ...toolOperatorHandlers({ registry: services.tools, declared, activity }),
        ...auditOperatorHandlers(services.auditLog, opts.clock),
        ...devices.handlers(),
      };
    },
    launchHook,
    pinnedCatalog: () => pinCatalog(services.extensions.current()),
    // Declarations first: the profile's denyTools may name a tool declared since the last load.
    reload: async () => {
      const tools = loadDeclared();
      return { ...services.reloadProfile(), tools };
    },
    stats: () => ({
      store: { ...services.store.describe, ...services.store.stats() },
      clientTools: clientTools.broker.stats(),
      audit: services.audit
        ? {
            enabled: true,
            recordPayloads: services.audit.recorder.settings.recordPayloads,
            ...services.audit.recorder.stats(),
          }
        : { enabled: false },
    }),
    close: async () => {
      await runner?.close();
      watchTools.close();
      clientTools.close();
      await services.close();
    },
  };
}
