import type { FromSchema } from 'json-schema-to-ts';

/**
 * What travels with each call of a stdio client tool, written once. The
 * daemon adds it to the `client_tool.request` event of the `serve --stdio`
 * child that registered the tool: the calling runtime's session and run
 * (null without one), a fresh call UUID, the task and thread of a delegated
 * thread (null on the primary thread) and the call's exact deadline. The
 * child checks it with the validator the build generates from this schema,
 * hands it to the app in `client.tool.call`, matches the identity the app
 * copies into `client.tool.result` against it, and repeats the identity in
 * `client.tool.cancel` with one of the reasons below.
 */

const nullableString = { type: ['string', 'null'] } as const;

const identityProperties = {
  session_id: nullableString,
  run_id: nullableString,
  call_id: { type: 'string', minLength: 1 },
  task_id: nullableString,
  subagent_id: nullableString,
} as const;

/** The identity fields, in the order the stdio contract lists them. */
export const STDIO_IDENTITY_KEYS = [
  'session_id',
  'run_id',
  'call_id',
  'task_id',
  'subagent_id',
] as const satisfies readonly (keyof typeof identityProperties)[];

export const stdioCallSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...STDIO_IDENTITY_KEYS, 'timeout_ms'],
  properties: { ...identityProperties, timeout_ms: { type: 'integer', minimum: 0 } },
} as const;

/** How the child names a cancellation to the app (`client.tool.cancel` reason). */
export const STDIO_CANCEL_REASONS = ['cancelled', 'timeout', 'run_finished', 'shutdown'] as const;

export type StdioCall = FromSchema<typeof stdioCallSchema>;
export type StdioCallIdentity = Omit<StdioCall, 'timeout_ms'>;
export type StdioCancelReason = (typeof STDIO_CANCEL_REASONS)[number];
