import type { Clock } from '../../lib/clock.js';
import type { Principal } from '../auth/principal.js';
import type { ProfileStore } from '../profile/profile-store.js';
import type { Profile } from '../profile/types.js';
import type { HiddenTools } from '../tools/contracts.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { DelegatedScopeStore } from '../store/delegated-scopes.js';
import type { ToolHost } from '../tools/contracts.js';
import { SavedScopes } from './saved-scopes.js';
import { scopeReadHandlers } from './scope-routes.js';
import { ListChangedNotifier } from '../tools/notify.js';
import { EventStreams } from '../events/streams.js';
import type { LongLivedStreams } from '../http/stream-budget.js';
import { ClientToolBroker } from './broker.js';
import type { ResultGate } from '../results/gate.js';
import { checkGroupNames, clientToolsNow, syncGroups, type ExposureDeps } from './exposure.js';
import { FALLBACK_OWNER, fallbackTools } from './fallback-tools.js';
import { clientToolHandlers } from './routes.js';
import { DelegatedScopes } from './scopes.js';
import { stdioHandlers } from './stdio-routes.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { clientToolsStatePath, readClientToolsState } from './state-file.js';
import { RememberedNames } from './remembered.js';
import { FALLBACK_TOOL_NAMES, type ClientToolSpec } from './types.js';

/**
 * Client tools wired into the daemon: the broker, its HTTP/SSE adapter
 * (event streams and /api/v1/client-tools), its exposure to agents through
 * the tool registry, the list_changed notifier, the remembered names and the
 * per-agent denyTools filter.
 */
interface ClientToolsPart {
  readonly broker: ClientToolBroker;
  readonly streams: EventStreams;
  readonly notifier: ListChangedNotifier;
  hiddenFor(principal: Principal): HiddenTools | undefined;
  /** `host` telling this part when a runtime delegates, so the child's scope is saved. */
  delegating(host: ToolHost): ToolHost;
  /** Runs `fn` with the client id of every event stream that closes, after the broker withdrew its tools. */
  onDisconnect(fn: (clientId: string) => void): void;
  /** Its rows of the operator API (catalog/operator/client-tools.ts). */
  operatorHandlers(): Pick<
    OperatorHandlers,
    | 'events.open'
    | 'clientTools.register'
    | 'clientTools.clients'
    | 'clientTools.requests'
    | 'clientTools.claim'
    | 'clientTools.result'
    | 'clientTools.stdio'
    | 'clientTools.reply'
    | 'clientTools.offered'
    | 'clientTools.scope'
    | 'clientTools.scopes'
  >;
  close(): void;
}

/** Read before the profile is parsed, so denyTools entries naming remembered tools are valid at boot. */
export function rememberedClientTools(home: string, log: (m: string) => void): RememberedNames {
  const path = clientToolsStatePath(home);
  return new RememberedNames(readClientToolsState(path, log), path, log);
}

export function isDenyable(remembered: { has(name: string): boolean }): (name: string) => boolean {
  return (name) =>
    remembered.has(name) || (FALLBACK_TOOL_NAMES as readonly string[]).includes(name);
}

export function openClientTools(opts: {
  home: string;
  clock: Clock;
  registry: ToolRegistry;
  profile: ProfileStore;
  remembered: RememberedNames;
  log: (m: string) => void;
  gate: ResultGate;
  /** Where delegated scopes are saved (the team store). */
  delegations: DelegatedScopeStore;
  /** The daemon-wide long-lived stream budget (GET notification and event streams count against it). */
  streams?: LongLivedStreams;
}): ClientToolsPart {
  const { registry, remembered } = opts;
  // A name the profile denies stays remembered, so the profile stays valid at the next boot.
  remembered.pinned = () => new Set(opts.profile.profile.agents.flatMap((a) => a.denyTools));

  // denyTools per agent, rebuilt when the profile object changes (every reload).
  let hiddenOf = new WeakMap<Profile, Map<string, HiddenTools | undefined>>();
  const hiddenFor = (principal: Principal): HiddenTools | undefined => {
    const profile = opts.profile.profile;
    let byAgent = hiddenOf.get(profile);
    if (!byAgent) {
      byAgent = new Map(
        profile.agents.map((a) => [
          a.id,
          a.denyTools.length > 0
            ? { names: new Set(a.denyTools), key: [...new Set(a.denyTools)].sort().join('\u0000') }
            : undefined,
        ]),
      );
      hiddenOf = new WeakMap([[profile, byAgent]]);
    }
    return byAgent.get(principal.agentId);
  };

  const notifier = new ListChangedNotifier(opts.clock, opts.streams);
  registry.subscribe(() => notifier.changed());

  let broker!: ClientToolBroker;
  const saved = new SavedScopes({
    store: opts.delegations,
    visible: (p) => clientToolsNow(registry, hiddenFor(p)?.names),
    log: opts.log,
  });
  const scopes = new DelegatedScopes(saved);
  const deps: ExposureDeps = {
    registry,
    broker: () => broker,
    hidden: (p) => hiddenFor(p)?.names,
    scopes,
    gate: opts.gate,
  };
  const showFallbacks = () => {
    if (registry.ownedBy(FALLBACK_OWNER.key).length === 0)
      registry.replace(FALLBACK_OWNER, fallbackTools(deps));
  };
  // A closed stream ends what its client held elsewhere too (a stdio child's sessions and their runs).
  const gone: ((clientId: string) => void)[] = [];
  const clients = {
    connect: (provider: boolean) => broker.connect(provider),
    keyOf: (id: string) => broker.keyOf(id),
    disconnect(id: string) {
      broker.disconnect(id);
      for (const fn of gone) fn(id);
    },
  };
  const streams = new EventStreams(opts.clock, () => clients, opts.gate, opts.streams);
  broker = new ClientToolBroker(
    opts.clock,
    {
      publish: (event) => streams.publish(event),
      toolsChanged(groups) {
        syncGroups(deps, groups);
        const names = [...groups.values()].flat().map((t) => t.name);
        if (names.length > 0) showFallbacks();
        remembered.remember(names);
      },
    },
    opts.gate,
  );
  // An app registered with this home before: the fallback tools are listed from boot on.
  if (remembered.size > 0) showFallbacks();

  return {
    broker,
    streams,
    notifier,
    hiddenFor,
    delegating: (host) => ({
      listResultJson: (p) => host.listResultJson(p),
      call: (name, args, ctx) => host.call(name, args, ctx),
      delegated: (p, child) => void saved.record(p, child),
    }),
    onDisconnect: (fn) => gone.push(fn),
    operatorHandlers() {
      const checkNames = (group: string, tools: readonly ClientToolSpec[]) =>
        checkGroupNames(registry, group, tools);
      return {
        'events.open': (_input, c) => streams.open(c),
        ...clientToolHandlers({ broker, checkNames, gate: opts.gate }),
        ...stdioHandlers({
          broker,
          scopes,
          checkNames,
          gate: opts.gate,
          taskExists: (id) => opts.delegations.taskExists(id),
        }),
        ...scopeReadHandlers({ store: opts.delegations, registry, gate: opts.gate }),
      };
    },
    close() {
      broker.shutdown();
      streams.closeAll();
      notifier.closeAll();
      remembered.close();
    },
  };
}
