/** The opts key under which cli/program.ts hands an operator read its command words. */
export const READ_COMMAND = '__readCommand';
