import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import type { Principal } from '../auth/principal.js';
import type { CallContext, ToolOwner } from './registry.js';

/**
 * What the parts that feed the tool registry agree on with the MCP route
 * that asks it: a built-in tool's handler, who owns the built-ins, what one
 * agent may not see, and the tool host a driver dispatches through. Kept
 * here so a source of tools (knowledge, client tools, declared tools) never
 * imports the MCP route.
 */

export type ToolHandler = (args: Record<string, unknown>, ctx: CallContext) => unknown;

/**
 * Bounds one success result. Returns the complete serialized CallToolResult
 * to publish (the frame the budget measured) or throws an ExecError
 * (result_budget_exceeded...). The daemon plugs in the shared result
 * boundary here so Exec and MCP share one budget.
 */
export type ResultBounder = (
  tool: McpToolDescriptor,
  input: Record<string, unknown>,
  data: unknown,
) => string;

/** `tool` names the registered tool that answered, `error` the code of a tool error result (for telemetry). */
type CallOutcome =
  | { ok: true; resultJson: string; tool?: string; error?: string }
  | { ok: false; code: number; message: string };

/** Tools one agent may neither see nor call (its profile's denyTools); `key` identifies the set for caching. */
export interface HiddenTools {
  readonly names: ReadonlySet<string>;
  readonly key: string;
}

export interface ToolHost {
  /** The serialized tools/list result: the registry's inventory at its current revision, less what the caller may not see. */
  listResultJson(principal: Principal): string;
  call(name: unknown, args: unknown, ctx: CallContext): Promise<CallOutcome>;
  /** Told when a runtime delegated to a child thread (a driver that sees spawns); the client tools save its scope. */
  delegated?(principal: Principal, child: DelegatedChild): void;
}

/** A child thread a runtime spawned (or resumed), as its driver saw it. */
export interface DelegatedChild {
  readonly threadId: string;
  /** The thread that spawned it: the run's primary thread or another child. */
  readonly parentId: string;
  readonly primaryId: string;
  /** The backend's identity of the delegation (the spawn item), else the thread's. */
  readonly taskId: string;
  /** An inspection task (a review, an explorer): never any client tool; a promise while the driver asks. */
  readonly inspection: boolean | Promise<boolean>;
  /** Resumed from an earlier delegation rather than spawned now. */
  readonly resumed: boolean;
}

export const BUILTIN_OWNER: ToolOwner = { key: 'builtin', label: "the daemon's built-in tools" };
