import type { Principal } from '../http/principal.js';
import type { CallContext, RegisteredTool, ToolOwner, ToolRegistry } from '../tools/registry.js';
import { ExecError } from '../errors.js';
import type { ClientToolBroker } from './broker.js';
import { clientResultFrame, toolErrorFrame } from './result-exit.js';
import type { ResultGate } from '../results/gate.js';
import { FALLBACK_TOOL_NAMES, type ClientToolSpec } from './types.js';

/**
 * Client tools as the agents see them: one registry owner per group
 * (`client:<group>`), and the two fallback tools for runtimes that never
 * re-list, listed once any app has ever registered.
 */

export const groupOwner = (group: string): ToolOwner => ({ key: `client:${group}`, label: `client tool group "${group}"` });
export const FALLBACK_OWNER: ToolOwner = { key: 'client-fallback', label: 'the fallback tools app_tools and app_call' };

export interface ExposureDeps {
  readonly registry: ToolRegistry;
  readonly broker: () => ClientToolBroker;
  /** Names the caller may neither see nor call (profile denyTools). */
  readonly hidden: (principal: Principal) => ReadonlySet<string> | undefined;
  /** The result gate every client tool answer passes (masking, bounding). */
  readonly gate?: ResultGate;
}

function clientEntry(deps: ExposureDeps, group: string, spec: ClientToolSpec): RegisteredTool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.input_schema,
    // No hints from apps: a delegated child thread may call none of these.
    annotations: {},
    owner: groupOwner(group),
    async call(args, ctx) {
      return clientResultFrame(await deps.broker().call(spec.name, args, ctx), ctx, deps.gate);
    },
  };
}

/** Throws name_conflict (naming both parties) when a group's names collide with anything else in the registry. */
export function checkGroupNames(registry: ToolRegistry, group: string, tools: readonly ClientToolSpec[]): void {
  const owner = groupOwner(group);
  const c = registry.conflictOf(owner.key, tools);
  if (c?.holder) throw new ExecError('name_conflict', `tool name "${c.name}" of ${owner.label} is already taken by ${c.holder.label}`);
}

/** Mirrors the broker's groups into the registry: removed groups go, changed groups are replaced as a whole. */
export function syncGroups(deps: ExposureDeps, groups: ReadonlyMap<string, readonly ClientToolSpec[]>): void {
  for (const t of deps.registry.list()) {
    if (t.owner.key.startsWith('client:') && !groups.has(t.owner.key.slice('client:'.length))) deps.registry.remove(t.owner.key);
  }
  for (const [group, tools] of groups) {
    const current = deps.registry.ownedBy(groupOwner(group).key);
    const same = current.length === tools.length && current.every((t, i) => t.name === tools[i]!.name && t.description === tools[i]!.description && JSON.stringify(t.inputSchema) === JSON.stringify(tools[i]!.input_schema));
    if (!same) deps.registry.replace(groupOwner(group), tools.map((spec) => clientEntry(deps, group, spec)));
  }
}

const textFrame = (value: unknown) => JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false });

export function fallbackTools(deps: ExposureDeps): RegisteredTool[] {
  const visible = (ctx: CallContext) => {
    const hidden = deps.hidden(ctx.principal);
    return deps.broker().offered().filter((o) => !hidden?.has(o.tool.name));
  };
  return [
    {
      name: FALLBACK_TOOL_NAMES[0],
      title: 'List app tools',
      description: 'Lists the tools that connected apps offer right now: name, group, description and input schema. Call one with app_call.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { title: 'List app tools', readOnlyHint: true, openWorldHint: false },
      owner: FALLBACK_OWNER,
      call(_args, ctx) {
        const tools = visible(ctx).map((o) => ({ name: o.tool.name, group: o.group, description: o.tool.description, input_schema: o.tool.input_schema }));
        return textFrame({ tools });
      },
    },
    {
      name: FALLBACK_TOOL_NAMES[1],
      title: 'Call an app tool',
      description: 'Calls one tool a connected app offers (see app_tools) with its arguments: {"tool": "<name>", "args": {...}}. Returns what the app returns.',
      inputSchema: {
        type: 'object',
        required: ['tool'],
        additionalProperties: false,
        properties: {
          tool: { type: 'string', minLength: 1, maxLength: 64, description: 'The tool name, as app_tools lists it.' },
          args: { type: 'object', description: 'The arguments, matching the input_schema app_tools shows.' },
        },
      },
      annotations: { title: 'Call an app tool', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      owner: FALLBACK_OWNER,
      async call(args, ctx) {
        const tool = args.tool;
        const inner = args.args ?? {};
        const extra = Object.keys(args).filter((k) => k !== 'tool' && k !== 'args');
        if (typeof tool !== 'string' || extra.length > 0 || inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
          return toolErrorFrame('validation_failed', 'app_call takes {"tool": "<name>", "args": {...}}');
        }
        if (!visible(ctx).some((o) => o.tool.name === tool)) return toolErrorFrame('no_client', `no connected app offers tool "${tool}"`);
        return clientResultFrame(await deps.broker().call(tool, inner as Record<string, unknown>, ctx), ctx, deps.gate);
      },
    },
  ];
}
