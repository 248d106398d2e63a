import { ExecError } from '../errors/exec-error.js';
import { CLIENT_TOOLS_PER_DAEMON } from '../../catalog/client-tool-limits.js';
import type { ClientToolSpec } from './types.js';

/**
 * The groups of client tools. Groups are shared by name: several clients
 * (two instances of one app) may register the same group, and the group
 * stays while any of them is connected. The first client to claim a request
 * of an agent owns that agent's group from then on; other clients cannot
 * claim its requests. A stdio child's group is its own and never shared.
 */

export interface Group {
  readonly name: string;
  /**
   * A stdio child's tools: registered once by that one client, never joined
   * by another, at most 16 pending calls, each claimed by the child as it is
   * published (there is no one else to claim it).
   */
  readonly stdio: boolean;
  /** A stdio child started with --server: only that server's agents may call its tools. */
  readonly serverId: string | null;
  tools: readonly ClientToolSpec[];
  readonly providers: Set<string>;
  /** agent key -> client id that owns this agent's use of the group. */
  readonly owners: Map<string, string>;
}

export class Groups {
  private readonly byName = new Map<string, Group>();

  get size(): number {
    return this.byName.size;
  }

  get(name: string): Group | undefined {
    return this.byName.get(name);
  }

  set(group: Group): void {
    this.byName.set(group.name, group);
  }

  delete(name: string): void {
    this.byName.delete(name);
  }

  /**
   * Throws too_many_tools when `count` more tools would pass the daemon-wide
   * limit: a group's registration (`replacing` its name, whose old tools do
   * not count) or a stdio child's (`replacing` null).
   */
  checkRoom(count: number, replacing: string | null): void {
    let others = 0;
    for (const g of this.byName.values()) if (g.name !== replacing) others += g.tools.length;
    if (others + count > CLIENT_TOOLS_PER_DAEMON) {
      const [who, what] =
        replacing === null ? ['by other apps', 'child'] : ['in other groups', 'group'];
      throw new ExecError(
        'too_many_tools',
        `the daemon holds at most ${CLIENT_TOOLS_PER_DAEMON} client tools; ${others} are registered ${who} and this ${what} has ${count}`,
      );
    }
  }

  /** The tool of that name and its group, if a connected app offers it. */
  find(name: string): { group: Group; tool: ClientToolSpec } | undefined {
    for (const g of this.byName.values()) {
      const tool = g.tools.find((t) => t.name === name);
      if (tool) return { group: g, tool };
    }
    return undefined;
  }

  /** Every offered tool with its group, in registration order. */
  offered(): { group: string; tool: ClientToolSpec }[] {
    return [...this.byName.values()].flatMap((g) =>
      g.tools.map((tool) => ({ group: g.name, tool })),
    );
  }

  /** Each group's tools, as the registry adapter mirrors them. */
  snapshot(): Map<string, readonly ClientToolSpec[]> {
    return new Map([...this.byName.values()].map((g) => [g.name, g.tools] as const));
  }
}

export const newGroup = (name: string): Group => ({
  name,
  stdio: false,
  serverId: null,
  tools: [],
  providers: new Set<string>(),
  owners: new Map<string, string>(),
});

/** A client stops providing a group: it no longer serves it, nor owns any agent's use of it. */
export function leaveGroup(g: Group, clientId: string): void {
  g.providers.delete(clientId);
  for (const [agent, owner] of g.owners) if (owner === clientId) g.owners.delete(agent);
}

export function sameTools(a: readonly ClientToolSpec[], b: readonly ClientToolSpec[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
