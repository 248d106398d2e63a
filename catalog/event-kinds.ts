/**
 * Every kind of event the operator event stream (`GET /api/v1/events`) sends,
 * with what its data holds: the one list the daemon's event type, the
 * stream's OpenAPI description and the docs read. Every event's data passes
 * the result gate's masking before any stream gets it.
 */
export const EVENT_KINDS = {
  hello: 'first frame: client_id, features, provider, heartbeat_s (client_key on provider streams)',
  heartbeat: 'every heartbeat_s seconds, no data',
  'client_tool.request':
    'an agent called a client tool: in full to the providers that may serve it, ids only to the others',
  'client_tool.cancelled':
    'a parked call was withdrawn: in full to its providers, ids only to the others',
  'client_tools.changed': 'the set of offered client tools changed: revision and tool names',
  'tool.shown': 'a declared tool showed something to people',
  'tool.asked': 'a declared tool asked people a question',
  'tool.answered': "a declared tool's question was answered",
  'daemon.log': "one of the daemon's diagnostic lines (streams opened with logs=1 only)",
  'turn.started': 'a turn began: turnId, serverId, agentId, target, messageIds, state',
  'turn.finished':
    'a turn ended: the same ids, its state, error code, exit status and whether it replied',
  'run.started':
    'a run an app started over serve --stdio began: session_id, run_id (to the child that owns the session; run_id only to the others)',
  'run.finished':
    'that run ended, after its last tool call: session_id, run_id, status, error when it failed (to the owning child; run_id only to the others)',
  'message.created':
    'a message was stored: id, serverId, target, author, replyTo, createdAt, length and excerpt (its first 200 characters, masked before cut)',
  'approval.requested':
    "an approval was asked for: id, serverId, requestedBy, title, status, createdAt, expiresAt, native (a runtime's own request: runtime, turnId, threadId, subagentId, delegated, kind)",
  'approval.decided':
    'an approval was decided or ended: id, serverId, status (approved, denied, expired, cancelled), decidedBy, decidedAt, note (why), title, native',
  'task.changed':
    'a task was created or changed: id, serverId, change (created|updated), fields (those set), actor, title, status, assignee, projectId, revision',
} as const;

export type EventKind = keyof typeof EVENT_KINDS;

/** The kinds a person watches (`agentteam watch`): what agents and people did, not the plumbing. */
export const PERSON_EVENT_KINDS: readonly EventKind[] = [
  'message.created',
  'approval.requested',
  'approval.decided',
  'task.changed',
  'turn.started',
  'turn.finished',
  'tool.shown',
  'tool.asked',
  'tool.answered',
];

/** How many characters of a message's text `message.created` carries. */
export const MESSAGE_EXCERPT_CHARS = 200;
