import * as approvals from './approvals.js';
import * as audit from './audit.js';
import * as clientTools from './client-tools.js';
import { clientToolsScopes } from './client-tool-scopes.js';
import * as conversations from './conversations.js';
import * as daemon from './daemon.js';
import * as devices from './devices.js';
import * as extensions from './extensions.js';
import * as messages from './messages.js';
import { OPERATOR_READ_ROUTES } from './reads.js';
import { OPERATOR_WRITE_ROUTES } from './writes.js';
import type { OperatorRoute } from './route.js';
import * as runtimes from './runtimes.js';
import * as stdioSessions from './stdio-sessions.js';
import * as tools from './tools.js';
import * as turns from './turns.js';

/**
 * The operator API (`/api/v1`): every row, in the order the dispatcher
 * registers them (a literal segment before a `:param` beside it, as
 * `approvals/servers` before `approvals/:id`), the operator reads and writes last
 * (one row per action, derived from catalog/operator-reads.ts and
 * catalog/operator-writes.ts).
 */
export const OPERATOR_API = [
  daemon.daemonStatus,
  daemon.daemonStop,
  daemon.daemonReload,
  daemon.daemonLogs,
  daemon.consoleCode,
  daemon.storeBackup,
  daemon.analysisCredential,
  runtimes.runtimesList,
  runtimes.runtimesLease,
  runtimes.runtimesRevoke,
  runtimes.runtimesRotate,
  runtimes.runtimesCodexAppServer,
  approvals.approvalsServers,
  approvals.approvalsPending,
  approvals.approvalsGet,
  approvals.approvalsDecide,
  audit.auditList,
  audit.auditSummary,
  audit.auditMinutes,
  extensions.extensionsInstall,
  extensions.extensionsList,
  extensions.extensionsRemove,
  extensions.catalogGet,
  messages.messagesPost,
  messages.messagesHistory,
  conversations.conversationsNames,
  conversations.conversationsRead,
  conversations.conversationsList,
  turns.turnsCancel,
  turns.turnsRetry,
  tools.toolsList,
  tools.toolsLog,
  tools.toolsAnswer,
  clientTools.clientToolsRegister,
  clientTools.clientToolsClients,
  clientTools.clientToolsRequests,
  clientTools.clientToolsClaim,
  clientTools.clientToolsResult,
  clientTools.clientToolsStdio,
  clientTools.clientToolsReply,
  clientTools.clientToolsOffered,
  clientTools.clientToolsScope,
  clientToolsScopes,
  clientTools.events,
  stdioSessions.stdioSessionCreate,
  stdioSessions.stdioTurnStart,
  stdioSessions.stdioTurnCancel,
  devices.devicesPair,
  devices.devicesExchange,
  devices.devicesList,
  devices.devicesRevoke,
  ...OPERATOR_READ_ROUTES,
  ...OPERATOR_WRITE_ROUTES,
] as const satisfies readonly OperatorRoute[];

type OperatorApi = (typeof OPERATOR_API)[number];
export type OperatorRouteName = OperatorApi['name'];
/** The row of one name. */
export type OperatorRouteOf<N extends OperatorRouteName> = Extract<OperatorApi, { name: N }>;
