/**
 * The size of a heavy test. `npm test` runs each at a reduced size that
 * still tests its guarantee (`quick`); `npm run test:soak` sets
 * AGENTTEAM_TEST_SOAK=1 and runs them at full size (`full`). A test names
 * the figure it used in its title, so the title is true at both sizes.
 */
export const SOAK = process.env.AGENTTEAM_TEST_SOAK === '1';

export function scale<T>(quick: T, full: T): T {
  return SOAK ? full : quick;
}

/** A count as a title writes it: 2,000. */
export function figure(n: number): string {
  return n.toLocaleString('en-US');
}
