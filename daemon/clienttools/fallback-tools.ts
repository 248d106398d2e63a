import type { Principal } from '../auth/principal.js';
import type { CallContext, ListedTool, RegisteredTool, ToolOwner } from '../tools/registry.js';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import { noteClientGroup } from '../audit/note.js';
import type { ResultGate } from '../results/gate.js';
import type { ClientToolBroker } from './broker.js';
import { clientResultFrame, clientToolError } from './result-exit.js';
import { FALLBACK_TOOL_NAMES, TOOL_NAME_RE } from './types.js';

/**
 * The two fixed tools for runtimes that never re-list (Codex): `app_tools`
 * pages through what connected apps offer right now, `app_call` calls one
 * of them through the same broker and result exit as a listed client tool.
 * They are listed once any app has ever registered.
 */

export const FALLBACK_OWNER: ToolOwner = {
  key: 'client-fallback',
  label: 'the fallback tools app_tools and app_call',
};

/** What the fallback tools need of the exposure (exposure.ts's deps). */
interface FallbackDeps {
  readonly broker: () => ClientToolBroker;
  /** Names the caller may neither see nor call (profile denyTools). */
  readonly hidden: (principal: Principal) => ReadonlySet<string> | undefined;
  readonly gate: ResultGate;
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
export const FALLBACK_LISTING: readonly ListedTool[] = [
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

export function fallbackTools(deps: FallbackDeps): RegisteredTool[] {
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
          return clientToolError(
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
          return clientToolError(
            ctx,
            'validation_failed',
            'app_call takes {"tool": "<name>", "args": {...}}',
          );
        }
        const offer = visible(ctx).find((o) => o.tool.name === tool);
        if (!offer)
          return clientToolError(ctx, 'no_client', `no connected app offers tool "${tool}"`);
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
