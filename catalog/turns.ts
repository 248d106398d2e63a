/**
 * The vocabulary of turns, shared by the store, the runner, the operator API
 * and the CLI: the states a turn passes through and the closed set of
 * reasons a turn did not succeed.
 *
 * queued -> running -> succeeded | failed | cancelled | interrupted; a turn
 * beyond an agent's queue is recorded `dropped` (queue_full) and never runs;
 * a queued turn may also be cancelled.
 */
export const TURN_STATES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
  'dropped',
] as const;

export type TurnState = (typeof TURN_STATES)[number];

export const TURN_ERRORS = [
  /** The agent's profile names no runtime the daemon can start (generic without a command). */
  'no_runtime',
  /** The runtime's executable is not on PATH or not at the configured path. */
  'runtime_not_found',
  /** The runtime ran past the turn's deadline and was stopped. */
  'timeout',
  /** The agent's queue was full when the message arrived. */
  'queue_full',
  /** The runtime exited with a non-zero status. */
  'runtime_failed',
  /** The daemon could not prepare the launch (lease, working directory, prompt file). */
  'launch_failed',
  /** A person cancelled it. */
  'cancelled',
  /** The `serve --stdio` child whose session it ran in exited (the app went away). */
  'shutdown',
  /** The daemon running it stopped or died before it ended. */
  'daemon_stopped',
] as const;

export type TurnError = (typeof TURN_ERRORS)[number];
