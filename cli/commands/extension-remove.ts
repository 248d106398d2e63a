import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/** `agentteam extension remove NAME`: runtimes started before keep their pinned catalog; new ones do not see it. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [name] = args;
  if (!name || !/^[a-z][a-z0-9-]{0,31}$/.test(name)) {
    return usage('extension remove', 'NAME must be an extension name such as github');
  }
  return sendOperator(resolveHome(), 'extensions.remove', { params: { name } }, 'extension remove');
}
