import type { Principal } from '../auth/principal.js';
import type { ListedTool, RegisteredTool, ToolOwner, ToolRegistry } from '../tools/registry.js';
import { ExecError } from '../errors/exec-error.js';
import type { ClientToolBroker } from './broker.js';
import { toolFingerprint } from '../../catalog/tool-fingerprint.js';
import { clientResultFrame, clientToolError } from './result-exit.js';
import { FALLBACK_LISTING, FALLBACK_OWNER } from './fallback-tools.js';
import { DelegatedScopes } from './scopes.js';
import { effectiveDescriptor } from './wire-spelling.js';
import type { ResultGate } from '../results/gate.js';
import type { ClientToolSpec } from './types.js';
import { noteClientGroup } from '../audit/note.js';

/**
 * Client tools as the agents see them: one registry owner per group
 * (`client:<group>`), with their fingerprints; the two fallback tools for
 * runtimes that never re-list are fallback-tools.ts.
 */

const groupOwner = (group: string): ToolOwner => ({
  key: `client:${group}`,
  label: `client tool group "${group}"`,
});

export interface ExposureDeps {
  readonly registry: ToolRegistry;
  readonly broker: () => ClientToolBroker;
  /** Names the caller may neither see nor call (profile denyTools). */
  readonly hidden: (principal: Principal) => ReadonlySet<string> | undefined;
  readonly scopes: DelegatedScopes;
  /** The result gate every client tool answer passes (masking, bounding). */
  readonly gate: ResultGate;
}

const fingerprints = new WeakMap<ClientToolSpec, string>();
export function fingerprintOf(spec: ClientToolSpec): string {
  let fp = fingerprints.get(spec);
  if (fp === undefined) {
    fp = toolFingerprint(effectiveDescriptor(spec));
    fingerprints.set(spec, fp);
  }
  return fp;
}

const specs = new WeakMap<RegisteredTool, ClientToolSpec>();

/** The client tools in the registry now, less `hidden`, by name and fingerprint (what a new delegated scope names). */
export function clientToolsNow(
  registry: ToolRegistry,
  hidden: ReadonlySet<string> | undefined,
): { name: string; fingerprint: string }[] {
  return registry
    .list()
    .flatMap((t) => {
      const spec = specs.get(t);
      return spec && !hidden?.has(t.name)
        ? [{ name: t.name, fingerprint: fingerprintOf(spec) }]
        : [];
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function clientEntry(deps: ExposureDeps, group: string, spec: ClientToolSpec): RegisteredTool {
  const fp = fingerprintOf(spec);
  const entry: RegisteredTool = {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.input_schema,
    // No hints from apps: a delegated thread may call one only through its saved scope.
    annotations: {},
    owner: groupOwner(group),
    // A delegated thread reaches call(), where its saved scope decides (not_in_scope).
    childAccess: () => true,
    async call(args, ctx) {
      noteClientGroup(ctx, group);
      let delegation = null;
      if (DelegatedScopes.delegated(ctx)) {
        delegation = await deps.scopes.allows(ctx, spec.name, fp);
        if (!delegation)
          return clientToolError(
            ctx,
            'not_in_scope',
            `${spec.name} is not in this delegated thread's saved scope with its current fingerprint`,
          );
      }
      return clientResultFrame(
        await deps.broker().call(spec.name, args, ctx, delegation),
        ctx,
        deps.gate,
      );
    },
  };
  specs.set(entry, spec);
  return entry;
}

/**
 * Before the broker changes anything: throws name_conflict (naming both
 * parties) when a group's names collide with anything else in the registry,
 * and inventory_too_large when the group (with the fallback tools its first
 * registration brings) would push tools/list past the budget.
 */
export function checkGroupNames(
  registry: ToolRegistry,
  group: string,
  tools: readonly ClientToolSpec[],
): void {
  const owner = groupOwner(group);
  const c = registry.conflictOf(owner.key, tools);
  if (c?.holder)
    throw new ExecError(
      'name_conflict',
      `tool name "${c.name}" of ${owner.label} is already taken by ${c.holder.label}`,
    );
  const fallbacks =
    tools.length > 0 && registry.ownedBy(FALLBACK_OWNER.key).length === 0 ? FALLBACK_LISTING : [];
  registry.checkBudget(owner, tools.map(listedOf), fallbacks);
}

/** How a client tool appears in tools/list (what clientEntry registers). */
const listedOf = (spec: ClientToolSpec): ListedTool => ({
  name: spec.name,
  description: spec.description,
  inputSchema: spec.input_schema,
  annotations: {},
});

/** Mirrors the broker's groups into the registry: removed groups go, changed groups are replaced as a whole. */
export function syncGroups(
  deps: ExposureDeps,
  groups: ReadonlyMap<string, readonly ClientToolSpec[]>,
): void {
  for (const t of deps.registry.list()) {
    if (t.owner.key.startsWith('client:') && !groups.has(t.owner.key.slice('client:'.length)))
      deps.registry.remove(t.owner.key);
  }
  for (const [group, tools] of groups) {
    const current = deps.registry.ownedBy(groupOwner(group).key);
    // Compared by fingerprint: a changed timeout is a changed tool too (saved scopes name fingerprints).
    const same =
      current.length === tools.length &&
      current.every((t, i) => {
        const s = specs.get(t);
        return s !== undefined && fingerprintOf(s) === fingerprintOf(tools[i]!);
      });
    if (!same)
      deps.registry.replace(
        groupOwner(group),
        tools.map((spec) => clientEntry(deps, group, spec)),
      );
  }
}
