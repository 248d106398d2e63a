/**
 * The server id every operator command uses when `--server` is not given:
 * `run` (the agents' server), `message post|history` and
 * the read commands. One default, so what a person posts is what an agent
 * started with the same defaults reads.
 */
export const DEFAULT_SERVER = 'local';

/** The opts key under which cli/program.ts hands an operator read its command words. */
export const READ_COMMAND = '__readCommand';
