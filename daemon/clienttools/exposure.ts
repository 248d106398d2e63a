import type { Principal } from '../auth/principal.js';
import type {
  CallContext,
  ListedTool,
  RegisteredTool,
  ToolOwner,
  ToolRegistry,
} from '../tools/registry.js';
import { ExecError } from '../errors/exec-error.js';
import type { ClientToolBroker } from './broker.js';
import { toolFingerprint } from '../../catalog/tool-fingerprint.js';
import { clientResultFrame, toolErrorFrame } from './result-exit.js';
import { DelegatedScopes } from './scopes.js';
import type { ResultGate } from '../results/gate.js';
import { FALLBACK_TOOL_NAMES, TOOL_NAME_RE, type ClientToolSpec } from './types.js';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import { noteClientGroup, noteFailure } from '../audit/note.js';

/**
 * Client tools as the agents see them: one registry owner per group
 * (`client:<group>`), and the two fallback tools for runtimes that never
 * re-list, listed once any app has ever registered.
 */

const groupOwner = (group: string): ToolOwner => ({
  key: `client:${group}`,
  label: `client tool group "${group}"`,
});
export const FALLBACK_OWNER: ToolOwner = {
  key: 'client-fallback',
  label: 'the fallback tools app_tools and app_call',
};

export interface ExposureDeps {
  readonly registry: ToolRegistry;
  readonly broker: () => ClientToolBroker;
  /** Names the caller may neither see nor call (profile denyTools). */
  readonly hidden: (principal: Principal) => ReadonlySet<string> | undefined;
  readonly scopes: DelegatedScopes;
  /** The result gate every client tool answer passes (masking, bounding). */
  readonly gate: ResultGate;
}

/** The effective descriptor a fingerprint covers: what the app registered, its timeout made explicit. */
function effectiveDescriptor(spec: ClientToolSpec): Record<string, unknown> {
  const { name, description, input_schema } = spec;
  return spec.timeout_ms !== undefined
    ? { name, description, input_schema, timeout_ms: spec.timeout_ms }
    : { name, description, input_schema, timeout_s: spec.timeout_s };
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

function clientEntry(deps: ExposureDeps, group: string, spec: ClientToolSpec): RegisteredTool {
  const fp = fingerprintOf(spec);
  const entry: RegisteredTool = {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.input_schema,
    // No hints from apps: a delegated thread may call one only through its saved scope.
    annotations: {},
    owner: groupOwner(group),
    childAccess: (ctx) => deps.scopes.allows(ctx, spec.name, fp) !== null,
    async call(args, ctx) {
      noteClientGroup(ctx, group);
      let delegation = null;
      if (DelegatedScopes.delegated(ctx)) {
        delegation = deps.scopes.allows(ctx, spec.name, fp);
        if (!delegation)
          return failed(
            ctx,
            'forbidden',
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

/** A tool error the agent reads as "<code>: <message>", noted as the call's outcome. */
function failed(ctx: CallContext, code: string, message: string): string {
  noteFailure(ctx, code);
  return toolErrorFrame(code, message);
}

const textFrame = (value: unknown) =>
  JSON.stringify({
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
    isError: false,
  });

/** The frame size an app_tools page may reach: the result budget with room for the tools/call envelope. */
const TOOLS_PAGE_BYTES = Math.floor(RESULT_BUDGET_BYTES * 0.85);

type ToolEntry = { name: string; group: string; description: string; input_schema: unknown };

/**
 * As many tools, in name order, as fit the page budget (at least one: a
 * single entry is bounded well below it by the registration limits), with a
 * cursor after the last one when more remain. Nothing is cut from an entry.
 */
function toolsPage(all: ToolEntry[]): string {
  let n = all.length;
  const frame = (k: number) =>
    textFrame(
      k < all.length
        ? { tools: all.slice(0, k), hasMore: true, nextCursor: encodeToolsCursor(all[k - 1]!.name) }
        : { tools: all, hasMore: false },
    );
  let out = frame(n);
  while (n > 1 && Buffer.byteLength(out) > TOOLS_PAGE_BYTES) out = frame(--n);
  return out;
}

const CURSOR_PREFIX = 'apt1.';
const encodeToolsCursor = (name: string) => CURSOR_PREFIX + Buffer.from(name).toString('base64url');

/** The tool name a cursor continues after, or null when it is not one of ours. */
function decodeToolsCursor(c: unknown): string | null {
  if (typeof c !== 'string' || !c.startsWith(CURSOR_PREFIX) || c.length > 128) return null;
  const name = Buffer.from(c.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8');
  return TOOL_NAME_RE.test(name) && encodeToolsCursor(name) === c ? name : null;
}

/** What tools/list shows of the fallback tools (their entries below spread these). */
const FALLBACK_LISTING: readonly ListedTool[] = [
  {
    name: FALLBACK_TOOL_NAMES[0],
    title: 'List app tools',
    description:
      'Lists the tools that connected apps offer right now, by name: name, group, description and input schema. Call one with app_call. A page holds as many tools as fit the result budget; while hasMore is true, call again with nextCursor.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cursor: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          'x-maxJsonBytes': 128,
          description: 'nextCursor of the previous page.',
        },
      },
    },
    annotations: { title: 'List app tools', readOnlyHint: true, openWorldHint: false },
  },
  {
    name: FALLBACK_TOOL_NAMES[1],
    title: 'Call an app tool',
    description:
      'Calls one tool a connected app offers (see app_tools) with its arguments: {"tool": "<name>", "args": {...}}. Returns what the app returns.',
    inputSchema: {
      type: 'object',
      required: ['tool'],
      additionalProperties: false,
      properties: {
        tool: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: 'The tool name, as app_tools lists it.',
        },
        args: {
          type: 'object',
          description: 'The arguments, matching the input_schema app_tools shows.',
        },
      },
    },
    annotations: {
      title: 'Call an app tool',
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    },
  },
];

export function fallbackTools(deps: ExposureDeps): RegisteredTool[] {
  const visible = (ctx: CallContext) => {
    const hidden = deps.hidden(ctx.principal);
    return deps
      .broker()
      .offered()
      .filter((o) => !hidden?.has(o.tool.name));
  };
  return [
    {
      ...FALLBACK_LISTING[0]!,
      owner: FALLBACK_OWNER,
      call(args, ctx) {
        const extra = Object.keys(args).filter((k) => k !== 'cursor');
        const after = args.cursor === undefined ? '' : decodeToolsCursor(args.cursor);
        if (extra.length > 0 || after === null)
          return failed(
            ctx,
            'validation_failed',
            'app_tools takes {} or {"cursor": "<nextCursor of the previous page>"}',
          );
        const all = visible(ctx)
          .filter((o) => o.tool.name > after)
          .sort((a, b) => (a.tool.name < b.tool.name ? -1 : 1))
          .map((o) => ({
            name: o.tool.name,
            group: o.group,
            description: o.tool.description,
            input_schema: o.tool.input_schema,
          }));
        return toolsPage(all);
      },
    },
    {
      ...FALLBACK_LISTING[1]!,
      owner: FALLBACK_OWNER,
      async call(args, ctx) {
        const tool = args.tool;
        const inner = args.args ?? {};
        const extra = Object.keys(args).filter((k) => k !== 'tool' && k !== 'args');
        if (
          typeof tool !== 'string' ||
          extra.length > 0 ||
          inner === null ||
          typeof inner !== 'object' ||
          Array.isArray(inner)
        ) {
          return failed(
            ctx,
            'validation_failed',
            'app_call takes {"tool": "<name>", "args": {...}}',
          );
        }
        const offer = visible(ctx).find((o) => o.tool.name === tool);
        if (!offer) return failed(ctx, 'no_client', `no connected app offers tool "${tool}"`);
        noteClientGroup(ctx, offer.group);
        return clientResultFrame(
          await deps.broker().call(tool, inner as Record<string, unknown>, ctx),
          ctx,
          deps.gate,
        );
      },
    },
  ];
}
