import type { OperatorRouteName } from './table.js';

/**
 * The rows a paired device's token may call: the person's side and nothing
 * else. Conversations (read a target's history, post as a person), approvals
 * (see and decide), client tools (register, list, claim and answer calls) and
 * the event stream. A row not named here is refused to a device with
 * `forbidden`, so a row added to the table later is closed to devices until
 * it is named here. Never listed: Exec and MCP (not operator rows at all),
 * leases and every row that hands out a credential, the daemon's own
 * controls, and the device rows themselves.
 */
export const DEVICE_ROUTES = [
  'messages.post',
  'messages.history',
  'approvals.servers',
  'approvals.pending',
  'approvals.get',
  'approvals.decide',
  'reads.approval.list',
  'clientTools.register',
  'clientTools.clients',
  'clientTools.requests',
  'clientTools.claim',
  'clientTools.result',
  'events.open',
] as const satisfies readonly OperatorRouteName[];

/**
 * Rows the owner-only unix socket does not serve: the ones that start a
 * runtime authorization or hand out a credential meant for a runtime or a
 * tool. The socket is for apps; a runtime is leased over the daemon's HTTP
 * address, where its URLs point.
 */
export const SOCKET_REFUSED_ROUTES = [
  'runtimes.lease',
  'runtimes.rotate',
  'runtimes.codexAppServer',
  'analysis.credential',
] as const satisfies readonly OperatorRouteName[];
