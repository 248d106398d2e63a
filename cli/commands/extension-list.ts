import { resolveHome } from '../../lib/home.js';
import { sendOperator } from './message-common.js';

/** `agentteam extension list`: installed extensions with digest, upstream, actions, and the catalog version. */
export async function main(): Promise<number> {
  return sendOperator(resolveHome(), 'extensions.list', {}, 'extension list');
}
