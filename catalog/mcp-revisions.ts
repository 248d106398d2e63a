/**
 * The MCP protocol revisions the daemon serves: data both the MCP route
 * family and the call observer (which labels metrics with a served revision
 * only) read, so it sits below both.
 */

/** The stateless revision, recognised per request. */
export const MODERN_VERSION = '2026-07-28';

/** The initialize-based revisions, newest first: an unknown requested revision is answered with the first one. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** Every revision served on the endpoint, the stateless one first (what server/discover and -32022 list). */
export const ALL_PROTOCOL_VERSIONS = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS] as const;
