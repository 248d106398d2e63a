import { DEVICE_ID_PATTERN } from '../../catalog/operator/devices.js';
import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/**
 * `agentteam device pair | list | revoke ID`: each prints the daemon's JSON
 * envelope; `pair`'s data holds the code and when it stops working.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const home = resolveHome();
  if (opts.verb === 'pair') return sendOperator(home, 'devices.pair', {}, 'device pair');
  if (opts.verb === 'list') return sendOperator(home, 'devices.list', {}, 'device list');
  const [id] = args;
  if (!id || !new RegExp(DEVICE_ID_PATTERN).test(id))
    return usage('device revoke', 'ID must be a device id (dev_ and 16 letters or digits)');
  return sendOperator(home, 'devices.revoke', { params: { id } }, 'device revoke');
}
