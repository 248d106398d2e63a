import type { Command as CommandType } from 'commander';
import type { CommandName } from './command-names.js';

/**
 * `agentteam device pair | list | revoke`: the apps (a phone, a desktop app)
 * paired with this daemon. Pairing prints a one-time code the app exchanges
 * for its own token, limited to the person's side.
 */
export function declareDeviceCommands(
  program: CommandType,
  bind: (name: CommandName) => (this: CommandType) => Promise<void>,
): void {
  const device = program
    .command('device')
    .description(
      "Pair apps with the daemon as devices limited to the person's side, list and revoke them.",
    );
  const verbs = [
    ['pair', 'Print a one-time code (valid 5 minutes) an app exchanges for its device token.'],
    ['list', 'List the paired devices that are not revoked.'],
  ] as const;
  for (const [verb, what] of verbs)
    device
      .command(verb)
      .description(what)
      .action(async function (this: CommandType) {
        this.setOptionValue('verb', verb);
        await bind('device').call(this);
      });
  device
    .command('revoke')
    .description('Revoke a device: its token is refused from the next request on.')
    .argument('<id>', 'device id (dev_...)')
    .action(async function (this: CommandType) {
      this.setOptionValue('verb', 'revoke');
      await bind('device').call(this);
    });
}
