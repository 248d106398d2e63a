import {
  approvalDecide,
  approvalGet,
  approvalList,
  approvalRequest,
} from '../../catalog/domains/approval.js';
import type { Registry } from '../exec/registry.js';

/** Approvals live on the team server; people decide through the operator API (daemon/operator/approvals.ts). */
export function registerApprovalHandlers(r: Registry): void {
  r.registerJSON(approvalRequest, (input, ctx) => ctx.server.requestApproval(input));
  r.registerJSON(approvalGet, (input, ctx) => ctx.server.getApproval(input));
  r.registerJSON(approvalList, (input, ctx) => ctx.server.listApprovals(input));
  r.registerJSON(approvalDecide, (input, ctx) => ctx.server.decideApproval(input));
}
