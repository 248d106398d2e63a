import { readFileSync } from 'node:fs';
import type { OperatorCommandSpec } from '../../catalog/operator-commands.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import type { OperatorRouteName } from '../../catalog/operator/table.js';
import { PERSON_PATTERN } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { OPERATOR_COMMANDS_FILE } from '../../lib/generated.js';
import { loadInputValidator } from '../../lib/input-validators.js';
import { printError } from '../exec/output.js';
import type { OperatorCallInput } from '../../lib/operator-client.js';
import { sendOperator } from './message-common.js';
import { DEFAULT_SERVER } from '../../catalog/ids.js';
import { READ_COMMAND } from '../defaults.js';

/**
 * `agentteam task list`, `approval list`, `workflow run list`, ...: one
 * catalog read (catalog/operator-reads.ts) for a person, through the operator
 * API; `task create`, `task assign`, `project create`, ...: one catalog
 * write (catalog/operator-writes.ts) made for the person `--as` names. The options were declared from the action's input schema; here they
 * become that input, are checked by the build's validator for the action
 * (the one `agentteam exec` uses), and go to the daemon in one request. The
 * daemon's envelope is printed as Exec prints it: same data, same cursors.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const path = opts[READ_COMMAND] as string[];
  const specs = JSON.parse(readFileSync(OPERATOR_COMMANDS_FILE, 'utf8')) as OperatorCommandSpec[];
  const spec = specs.find((s) => s.command.join(' ') === path.join(' '));
  if (!spec) throw new Error(`no operator command ${path.join(' ')} in ${OPERATOR_COMMANDS_FILE}`);
  const label = spec.command.join(' ');
  const serverId = typeof opts.server === 'string' ? opts.server : DEFAULT_SERVER;
  if (!isEntityId(serverId)) {
    return printError({
      code: 'usage',
      message: `agentteam ${label}: --server must be ${ENTITY_ID_RULE}`,
    });
  }
  const as = opts.as;
  if (as !== undefined && (typeof as !== 'string' || !new RegExp(PERSON_PATTERN).test(as))) {
    return printError({
      code: 'usage',
      message: `agentteam ${label}: --as must be human:<handle>`,
    });
  }
  const input: Record<string, unknown> = spec.op === undefined ? {} : { op: spec.op };
  spec.args.forEach((f, i) => {
    input[f.name] = args[i];
  });
  for (const f of spec.options) {
    const v = opts[f.name];
    // `--no-<flag>` (commander's false) clears a field that takes null.
    if (v === false && f.nullable) input[f.name] = null;
    else if (v !== undefined) input[f.name] = f.type === 'integer' ? Number(v) : v;
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
  const route = spec.route as Extract<OperatorRouteName, `reads.${string}` | `writes.${string}`>;
  const call = {
    params: { serverId },
    body: input,
    ...(spec.write ? { query: typeof as === 'string' ? { as } : {} } : {}),
  } as OperatorCallInput<typeof route>;
  return sendOperator(resolveHome(), route, call, label);
}
