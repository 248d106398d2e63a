import { randomBytes } from 'node:crypto';

/**
 * The session and run a lease opened by `agentteam run` names in its calls
 * (client-tool calls, workspace get, the runtime list): minted by the daemon,
 * never typed by whoever asked, so an app that receives them can trust they
 * identify one run. `--session NAME` is only a label beside them.
 */
export function mintRunIdentity(): { sessionId: string; runId: string } {
  return {
    sessionId: `ses_${randomBytes(15).toString('base64url')}`,
    runId: `run_${randomBytes(15).toString('base64url')}`,
  };
}
