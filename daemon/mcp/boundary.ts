import type { Context } from 'hono';
import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import type { Clock } from '../../lib/clock.js';
import type { ResultGate } from '../results/gate.js';
import type { BoundaryOptions, BoundaryPolicy } from '../results/boundary.js';
import type { ResultBounder } from '../tools/contracts.js';
import { readRequestBody, RevokedError } from '../http/body.js';
import { ExecError } from '../errors/exec-error.js';
import { successResult } from '../tools/tool-result.js';
import type { RuntimeRequest } from '../auth/principal.js';

/** The Exec boundary's view of an MCP tool: risk from the inventory annotations, guidance from the tool. */
function policyOf(tool: McpToolDescriptor): BoundaryPolicy {
  return {
    domain: 'mcp',
    action: tool.name,
    risk: tool.annotations.readOnlyHint === true ? 'read' : 'side_effect',
    result: tool.overBudget,
    receipt: { entity: 'message', selectors: ['id', 'target'], retrieval: 'message_history_read' },
  };
}

/** The whole CallToolResult frame is what the budget measures: the structured result and its text copy. */
const FRAME: BoundaryOptions = Object.freeze({ wrap: (d: unknown) => d, frame: successResult });

/**
 * tools/call results pass the same result gate as Exec results (secrets
 * masked, then the 64 KiB boundary). What is measured is the complete
 * CallToolResult as sent: the structured result and its text copy together,
 * so a frame never carries more than the budget. A read tool's policy is
 * made once per tool and the options once, so the gate can give a cached
 * page's frame again: the message store hands back the same page object
 * until a write to its target.
 */
export function sharedBoundary(gate: Pick<ResultGate, 'json'>): ResultBounder {
  const policies = new WeakMap<McpToolDescriptor, BoundaryPolicy>();
  return (tool, input, data) => {
    let policy = policies.get(tool);
    if (policy === undefined) {
      policy = policyOf(tool);
      policies.set(tool, policy);
    }
    const out = gate.json(policy, input, data, FRAME);
    if (!out.ok) throw out.error;
    return out.body;
  };
}

/**
 * The Exec body reader (1 MiB, absolute 5 s deadline, stops on revocation),
 * as text; straight from the Node request when running on @hono/node-server.
 */
export function sharedBodyReader(clock: Clock): (c: Context) => Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return async (c) => {
    const { signal } = c.get('runtime') as RuntimeRequest;
    let bytes: Uint8Array;
    try {
      bytes = await readRequestBody(c, { clock, signal });
    } catch (err) {
      if (err instanceof RevokedError)
        throw new ExecError('unavailable', 'the runtime authorization was revoked');
      throw err;
    }
    try {
      return decoder.decode(bytes);
    } catch {
      throw new ExecError('invalid_json', 'the body is not valid UTF-8');
    }
  };
}
