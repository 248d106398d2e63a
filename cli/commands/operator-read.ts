import { readFileSync } from 'node:fs';
import type { ReadCommandSpec } from '../../catalog/operator-reads.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { OPERATOR_READS_FILE } from '../../lib/generated.js';
import { loadInputValidator } from '../../lib/input-validators.js';
import { printError } from '../exec/output.js';
import type { OperatorCallInput } from '../../lib/operator-client.js';
import { sendOperator } from './message-common.js';
import { DEFAULT_SERVER } from '../../catalog/ids.js';
import { READ_COMMAND } from '../defaults.js';

/**
 * `agentteam task list`, `approval list`, `workflow run list`, ...: one
 * catalog read (catalog/operator-reads.ts) for a person, through the operator
 * API. The options were declared from the action's input schema; here they
 * become that input, are checked by the build's validator for the action
 * (the one `agentteam exec` uses), and go to the daemon in one request. The
 * daemon's envelope is printed as Exec prints it: same data, same cursors.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const path = opts[READ_COMMAND] as string[];
  const specs = JSON.parse(readFileSync(OPERATOR_READS_FILE, 'utf8')) as ReadCommandSpec[];
  const spec = specs.find((s) => s.command.join(' ') === path.join(' '));
  if (!spec) throw new Error(`no operator read ${path.join(' ')} in ${OPERATOR_READS_FILE}`);
  const label = spec.command.join(' ');
  const serverId = typeof opts.server === 'string' ? opts.server : DEFAULT_SERVER;
  if (!isEntityId(serverId)) {
    return printError({
      code: 'usage',
      message: `agentteam ${label}: --server must be ${ENTITY_ID_RULE}`,
    });
  }
  const input: Record<string, unknown> = spec.op === undefined ? {} : { op: spec.op };
  spec.args.forEach((f, i) => {
    input[f.name] = args[i];
  });
  for (const f of spec.options) {
    const v = opts[f.name];
    if (v !== undefined) input[f.name] = f.type === 'integer' ? Number(v) : v;
  }
  const check = await loadInputValidator(spec.domain, spec.action);
  const verdict = check?.(input);
  if (verdict && !verdict.ok) {
    return printError({
      code: 'validation_failed',
      message: `agentteam ${label}: the options do not match the ${spec.domain} ${spec.action} schema`,
      hint: `See agentteam ${label} --help.`,
      details: verdict.details,
      ...(verdict.detailsOmitted ? { detailsOmitted: verdict.detailsOmitted } : {}),
    });
  }
  // The input was built from the spec's fields and checked by the action's validator above.
  const body = input as OperatorCallInput<typeof spec.route>['body'];
  return sendOperator(resolveHome(), spec.route, { params: { serverId }, body }, label);
}
