import type { LaunchHook } from './drivers/launch-hook.js';
import { prepareRuntimeDriver } from './drivers/index.js';
import { memoryFolder } from './knowledge/memory.js';
import type { AgentteamBinary } from './drivers/binary.js';

/**
 * What the daemon adds to every runtime it prepares (`agentteam run` and a
 * delivered turn alike): the runtime's driver (its MCP configuration, the
 * token's place, the guidance), with the agent's memory folder and the
 * daemon's own `agentteam` binary.
 */
export function runtimeLaunchHook(home: string, agentteam: AgentteamBinary): LaunchHook {
  return (auth, runtime, mcpUrl, env, runtimeVersion) => {
    const launch = prepareRuntimeDriver({
      runtime,
      mcpUrl,
      tokenFile: auth.tokenFile,
      privateDir: auth.dir,
      env,
      runtimeVersion,
      agentteam,
      memoryDir: memoryFolder(home, auth.principal.agentId),
    });
    return {
      env: launch.env,
      args: launch.args,
      ...(launch.argsFor ? { argsFor: launch.argsFor } : {}),
      ...(launch.shimDir ? { shimDir: launch.shimDir } : {}),
      ...(launch.tokenEnv ? { tokenEnv: launch.tokenEnv } : {}),
      ...(launch.binDir ? { binDir: launch.binDir } : {}),
    };
  };
}
