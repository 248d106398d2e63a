import { detailsOf, type ValidateFunction } from '../../lib/input-validators.js';
import { sharedValidator } from '../../lib/validator.js';
import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { wireTool } from '../../catalog/mcp-wire.js';
import type { Principal } from '../auth/principal.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import { cutJsonText } from '../../catalog/error-limits.js';
import type { CallContext, RegisteredTool, ToolRegistry } from '../tools/registry.js';
import {
  BUILTIN_OWNER,
  type HiddenTools,
  type ResultBounder,
  type ToolHandler,
  type ToolHost,
} from '../tools/contracts.js';
import { attachedThread, threadGate, type ThreadRole } from '../http/child-gate.js';
import { errorResult } from '../tools/tool-result.js';
import { noteFailure } from '../audit/note.js';

/**
 * The calling thread's role for the gate. A driver that attaches threads
 * gives it; a call that reaches the HTTP route of such a runtime carries no
 * attached thread, so a thread it claims is refused (attachedThread) and an
 * unclaimed call is the runtime process itself, like an Exec call. Else the
 * claim is compared with the recorded primary thread.
 */
function roleOf(ctx: CallContext): ThreadRole {
  if (ctx.threadRole !== undefined) return ctx.threadRole;
  if (ctx.principal.threadsByDriver)
    return attachedThread(ctx.threadId, null) === null ? 'primary' : 'child';
  return ctx.threadId === null || ctx.threadId === ctx.principal.primaryThreadId
    ? 'primary'
    : 'child';
}

interface Entry {
  readonly tool: McpToolDescriptor;
  /** Compiled at the tool's first call, not at start: a daemon that never sees a call pays nothing. */
  validate: ValidateFunction | null;
  readonly handler: ToolHandler;
}

/**
 * Binds the built-in inventory to handlers and registers it in the tool
 * registry, which tools/list and tools/call then ask. Fails at construction
 * when a tool has no handler or a handler has no tool, so the inventory and
 * what tools/call can run never drift apart.
 */
export function createToolHost(
  registry: ToolRegistry,
  inventory: readonly McpToolDescriptor[],
  handlers: Readonly<Record<string, ToolHandler>>,
  bound: ResultBounder,
  hiddenFor: (principal: Principal) => HiddenTools | undefined = () => undefined,
): ToolHost {
  // Error objects beyond the first few are only counted (lib/validator-cap.ts).
  const ajv = sharedValidator();
  const entries = new Map<string, Entry>();
  for (const tool of inventory) {
    const handler = handlers[tool.name];
    if (!handler) throw new Error(`MCP tool "${tool.name}" has no handler`);
    if (entries.has(tool.name)) throw new Error(`MCP tool "${tool.name}" is declared twice`);
    entries.set(tool.name, { tool, validate: null, handler });
  }
  for (const name of Object.keys(handlers)) {
    if (!entries.has(name)) throw new Error(`handler "${name}" names no MCP tool in the inventory`);
  }

  function builtin(entry: Entry): RegisteredTool {
    const { tool } = entry;
    // tools/list carries the wire form (catalog/mcp-wire.ts); calls are validated against the whole catalog schema.
    return {
      ...wireTool(tool),
      owner: BUILTIN_OWNER,
      async call(input, ctx) {
        entry.validate ??= ajv.compile(tool.inputSchema as object) as ValidateFunction;
        const validate = entry.validate;
        if (!validate(input)) {
          // The same JSON-pointer details, detail cap and count of the rest as Exec.
          throw new ExecError(
            'validation_failed',
            `arguments do not match the ${tool.name} input schema`,
            detailsOf(validate.errors ?? [], validate.errorCount),
          );
        }
        if (ctx.signal.aborted) throw new ExecError('forbidden', 'the authorization was revoked');
        const data = await entry.handler(input, ctx);
        // No success is published once the authorization is revoked.
        if (ctx.signal.aborted) throw new ExecError('forbidden', 'the authorization was revoked');
        return bound(tool, input, data);
      },
    };
  }
  registry.replace(BUILTIN_OWNER, [...entries.values()].map(builtin));

  return {
    listResultJson(principal) {
      const hidden = hiddenFor(principal);
      return hidden ? registry.listResultJson(hidden.names, hidden.key) : registry.listResultJson();
    },
    async call(name, args, ctx) {
      if (typeof name !== 'string')
        return { ok: false, code: -32602, message: 'params.name must be a string' };
      if (
        args !== undefined &&
        (args === null || typeof args !== 'object' || Array.isArray(args))
      ) {
        noteFailure(ctx, 'validation_failed');
        return { ok: false, code: -32602, message: 'params.arguments must be an object' };
      }
      // A denied tool is unknown to that agent: same answer as a name that does not exist.
      const hidden = hiddenFor(ctx.principal);
      const entry = hidden?.names.has(name) ? undefined : registry.get(name);
      try {
        // The gate runs before the unknown-tool check: a child gets the same answer for both.
        threadGate(name, entry?.annotations, roleOf(ctx), entry?.childAccess?.(ctx));
      } catch (err) {
        noteFailure(ctx, err);
        const body = errorBody(err);
        return {
          ok: true,
          resultJson: errorResult(body),
          error: body.code,
          ...(entry ? { tool: name } : {}),
        };
      }
      if (!entry) {
        noteFailure(ctx, 'not_found');
        return { ok: false, code: -32602, message: `Unknown tool: ${cutJsonText(name, 256)}` };
      }
      const input = (args ?? {}) as Record<string, unknown>;
      try {
        return { ok: true, resultJson: await entry.call(input, ctx), tool: name };
      } catch (err) {
        noteFailure(ctx, err);
        const body = errorBody(err);
        return { ok: true, resultJson: errorResult(body), tool: name, error: body.code };
      }
    },
  };
}
