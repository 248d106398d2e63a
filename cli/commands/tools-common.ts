import { operatorRequest, readDaemonInfo } from '../daemon-client.js';

/** One operator request for the tools commands; null (after a message, exit 3) when no daemon answers. */
export async function toolsRequest(home: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any } | null> {
  if (!readDaemonInfo(home)) {
    process.stderr.write(`agentteam tools: no daemon is running for ${home} (start one with \`agentteam daemon start\`)\n`);
    return null;
  }
  try {
    return await operatorRequest(home, method, path, body);
  } catch (err) {
    process.stderr.write(`agentteam tools: cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}\n`);
    return null;
  }
}

/** Prints the error of a failed envelope on stderr; returns the exit status. */
export function reportFailure(json: any): number {
  process.stderr.write(`agentteam tools: ${json?.error?.message ?? 'the daemon refused the request'}\n`);
  return 1;
}
