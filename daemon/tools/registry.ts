import type { ThreadRole } from '../http/child-gate.js';
import type { ToolAnnotations } from '../../catalog/mcp-tool-descriptor.js';
import type { Principal } from '../auth/principal.js';
import { ExecError } from '../errors/exec-error.js';
import type { AuditNote } from '../audit/note.js';
import { INVENTORY_BUDGET_BYTES } from '../../catalog/limits.js';

/**
 * The one registry of what agents can call over MCP, whatever reaches it:
 * the daemon's built-in tools, tools declared in files, tools apps provide.
 * The MCP route asks this registry for the inventory and for the tool to run;
 * it never talks to a transport. Each entry belongs to one owner (a key such
 * as `builtin`, `declared`, `client:<clientId>/<group>`); an owner's entries
 * are replaced as a whole, and a name belongs to one owner at a time.
 */

export interface CallContext {
  readonly principal: Principal;
  /** The thread the call identifies (child gate input), or null. */
  readonly threadId: string | null;
  /**
   * Set only by a driver that attached `threadId` itself and knows every
   * thread of the run (Codex app-server); then the gate takes this role
   * instead of comparing a claimed id with the primary thread.
   */
  readonly threadRole?: ThreadRole;
  /** Aborted when the caller's authorization is revoked or the daemon stops. */
  readonly signal: AbortSignal;
  /**
   * Aborted when the caller stops waiting (its HTTP request closes). A getter,
   * read only by calls that park (client tools), so quick calls do not pay for it.
   */
  readonly gone?: () => AbortSignal;
  /** The call record's note (daemon/audit/note.ts): where it was sent on, how a tool error ended. Absent outside an observed call. */
  readonly audit?: AuditNote;
}

export interface ToolOwner {
  /** Stable key: entries are replaced and removed per owner. */
  readonly key: string;
  /** Who it is, for messages: `the daemon's built-in tools`, `client c_1 (group "editor")`. */
  readonly label: string;
}

export interface RegisteredTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations: ToolAnnotations;
  readonly owner: ToolOwner;
  /**
   * Whether a delegated (non-primary) thread may call this tool, when the
   * source decides it itself (client tools: the thread's saved scope). Absent:
   * the child gate's readOnlyHint rule decides.
   */
  childAccess?(ctx: CallContext): boolean;
  /**
   * Runs one call with the caller's arguments (an object, not yet validated:
   * each source validates as it must) and resolves to a serialized MCP
   * CallToolResult. Throwing an ExecError makes a tool error result.
   */
  call(args: Record<string, unknown>, ctx: CallContext): Promise<string> | string;
}

export class NameConflictError extends ExecError {
  constructor(
    readonly toolName: string,
    readonly holder: ToolOwner,
    readonly claimant: ToolOwner,
  ) {
    super(
      'name_conflict',
      `tool name "${toolName}" of ${claimant.label} is already taken by ${holder.label}`,
    );
  }
}

type RegistryListener = (revision: number) => void;

/** What tools/list shows of one entry. */
export type ListedTool = Pick<
  RegisteredTool,
  'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'
>;

function listEntry(t: ListedTool): Record<string, unknown> {
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    annotations: t.annotations,
  };
}

const listedBytes = new WeakMap<ListedTool, number>();
/** Compact JSON bytes of one entry in tools/list (cached per entry object). */
function bytesOf(t: ListedTool): number {
  let n = listedBytes.get(t);
  if (n === undefined) {
    n = Buffer.byteLength(JSON.stringify(listEntry(t)));
    listedBytes.set(t, n);
  }
  return n;
}

/** `{"tools":[` and `]}` around the entries, which are joined by commas. */
const LIST_WRAPPER_BYTES = Buffer.byteLength('{"tools":[]}');

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly byOwner = new Map<string, RegisteredTool[]>();
  private readonly listeners = new Set<RegistryListener>();
  private ordered: readonly RegisteredTool[] = [];
  private rev = 0;
  /** tools/list result JSON per deny-set key, valid for `cachedAt` only. */
  private listCache = new Map<string, string>();
  private cachedAt = -1;

  /** `budget`: the most bytes any agent's tools/list may reach (INVENTORY_BUDGET_BYTES). */
  constructor(readonly budget: number = INVENTORY_BUDGET_BYTES) {}

  /**
   * The bytes of the unfiltered tools/list (the largest any agent sees, since
   * denyTools only hides) if `ownerKey`'s entries were `tools` and `extra`
   * were added beside them.
   */
  listBytesWith(
    ownerKey: string,
    tools: readonly ListedTool[],
    extra: readonly ListedTool[] = [],
  ): number {
    let bytes = LIST_WRAPPER_BYTES;
    let n = 0;
    for (const t of this.ordered) {
      if (t.owner.key === ownerKey) continue;
      bytes += bytesOf(t);
      n++;
    }
    for (const t of [...tools, ...extra]) {
      bytes += bytesOf(t);
      n++;
    }
    return bytes + Math.max(0, n - 1);
  }

  /**
   * Throws inventory_too_large when `owner` registering `tools` (and `extra`
   * appearing with them) would push tools/list past the budget. A change
   * that does not grow the list is always allowed.
   */
  checkBudget(
    owner: ToolOwner,
    tools: readonly ListedTool[],
    extra: readonly ListedTool[] = [],
  ): void {
    const after = this.listBytesWith(owner.key, tools, extra);
    if (after <= this.budget || after <= this.listBytesWith(owner.key, this.ownedBy(owner.key)))
      return;
    const own = tools.reduce((n, t) => n + bytesOf(t), 0);
    throw new ExecError(
      'inventory_too_large',
      `registering ${owner.label} would make every agent's tools/list ${after} bytes; the inventory budget is ${this.budget} bytes (${Math.round(this.budget / 1024)} KiB) per agent, and these tools take ${own}`,
      {
        hint: 'Register fewer tools, or shorter descriptions and input schemas.',
      },
    );
  }

  /** Bumps on every change of the inventory. */
  get revision(): number {
    return this.rev;
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Every entry in inventory order (owners in first-registration order, entries in their order). */
  list(): readonly RegisteredTool[] {
    return this.ordered;
  }

  /** The entries of one owner, in their order. */
  ownedBy(key: string): readonly RegisteredTool[] {
    return this.byOwner.get(key) ?? [];
  }

  /**
   * The first name in `tools` that another owner already holds, or a name
   * listed twice; null when `owner` could take all of them. Does not change anything.
   */
  conflictOf(
    ownerKey: string,
    tools: readonly { name: string }[],
  ): { name: string; holder: ToolOwner | null } | null {
    const seen = new Set<string>();
    for (const t of tools) {
      if (seen.has(t.name)) return { name: t.name, holder: null };
      seen.add(t.name);
      const held = this.byName.get(t.name);
      if (held && held.owner.key !== ownerKey) return { name: t.name, holder: held.owner };
    }
    return null;
  }

  /**
   * Replaces everything `owner` registered with `tools` in one step (an empty
   * list removes the owner). Throws NameConflictError, naming both parties,
   * when a name is held by another owner; then nothing changes.
   */
  replace(owner: ToolOwner, tools: readonly RegisteredTool[]): void {
    for (const t of tools) {
      if (!NAME_RE.test(t.name))
        throw new ExecError(
          'invalid_request',
          `tool name "${t.name}" must match ${NAME_RE.source}`,
        );
      if (t.owner.key !== owner.key)
        throw new Error(`tool "${t.name}" is not owned by ${owner.key}`);
    }
    const conflict = this.conflictOf(owner.key, tools);
    if (conflict) {
      if (conflict.holder === null)
        throw new ExecError(
          'invalid_request',
          `tool name "${conflict.name}" is listed twice by ${owner.label}`,
        );
      throw new NameConflictError(conflict.name, conflict.holder, owner);
    }
    this.checkBudget(owner, tools);
    const before = this.byOwner.get(owner.key) ?? [];
    if (before.length === 0 && tools.length === 0) return;
    for (const t of before) this.byName.delete(t.name);
    if (tools.length === 0) this.byOwner.delete(owner.key);
    else this.byOwner.set(owner.key, [...tools]);
    for (const t of tools) this.byName.set(t.name, t);
    this.ordered = [...this.byOwner.values()].flat();
    this.rev++;
    for (const fn of this.listeners) {
      try {
        fn(this.rev);
      } catch {
        // a listener's failure must not undo or block the change
      }
    }
  }

  remove(ownerKey: string): void {
    const tools = this.byOwner.get(ownerKey);
    if (tools && tools.length > 0) this.replace(tools[0]!.owner, []);
  }

  /** Called after every change with the new revision; returns the unsubscribe function. */
  subscribe(fn: RegistryListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * The serialized tools/list result without the `hidden` names, cached per
   * revision and hidden set: identical for every caller with the same set.
   */
  listResultJson(hidden?: ReadonlySet<string>, hiddenKey = ''): string {
    if (this.cachedAt !== this.rev) {
      this.listCache = new Map();
      this.cachedAt = this.rev;
    }
    const key = hidden && hidden.size > 0 ? hiddenKey || [...hidden].sort().join('\u0000') : '';
    let json = this.listCache.get(key);
    if (json === undefined) {
      const tools = this.ordered.filter((t) => !(key !== '' && hidden!.has(t.name))).map(listEntry);
      json = JSON.stringify({ tools });
      // Hidden sets come from the profile, so there are few of them; bound the cache anyway.
      if (this.listCache.size < 256) this.listCache.set(key, json);
    }
    return json;
  }
}
