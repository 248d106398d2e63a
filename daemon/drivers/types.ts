import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import type { RuntimeKind } from './names.js';

export interface DriverInput {
  readonly runtime: RuntimeKind;
  /** `{daemon url}/api/internal/mcp/servers/{S}/agents/{A}` */
  readonly mcpUrl: string;
  /** The authorization's token file (rotated in place by the daemon). */
  readonly tokenFile: string;
  /** The authorization's private 0700 directory; removed with the credentials. */
  readonly privateDir: string;
  readonly inventory: readonly McpToolDescriptor[];
  /** Environment of the `run` process, for locating a runtime's own home (Codex login). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What the runtime's `--version` printed on the `run` side (Codex), or null when it could not be read. */
  readonly runtimeVersion?: string | null;
}

/**
 * What `agentteam run` adds to the runtime's launch: extra environment and
 * arguments inserted right after the command name. Paths only; never a token.
 */
export interface DriverLaunch {
  readonly env: Record<string, string>;
  readonly args: string[];
  /**
   * The executable `args` belong to (`claude`). When the wrapped command is
   * another program, `run` does not insert them; it puts `shimDir` first on
   * PATH instead, where a shim of that name adds them.
   */
  readonly argsFor?: string;
  readonly shimDir?: string;
  /**
   * A variable `run` sets to the current token when it starts the runtime
   * directly (a Codex too old for a header helper reads its bearer there).
   */
  readonly tokenEnv?: string;
  /** The runtime's private bin directory holding the `agentteam` launcher; `run` puts it first on PATH. */
  readonly binDir?: string;
  /** Files written, for tests and diagnostics. */
  readonly files: Record<string, string>;
}
