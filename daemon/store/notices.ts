import type { OutputOf } from '../../catalog/descriptor.js';
import type { approvalGet } from '../../catalog/domains/approval.js';
import type { taskGet } from '../../catalog/domains/task.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import type { SqlTx } from './sql.js';

type Approval = OutputOf<typeof approvalGet>['approval'];
type Task = OutputOf<typeof taskGet>['task'];

/** The task fields a write may change, as the catalog names them. */
export type TaskField = 'title' | 'description' | 'status' | 'assignee' | 'projectId';

/** One committed write, as the store tells it (the wiring turns it into an event). */
export type StoreNotice =
  | { readonly kind: 'message'; readonly serverId: string; readonly message: MessageRecord }
  | {
      readonly kind: 'approval.requested' | 'approval.decided';
      readonly serverId: string;
      readonly approval: Approval;
    }
  | {
      readonly kind: 'task';
      readonly serverId: string;
      /** Who wrote: an agent id, or a person's `human:` handle. */
      readonly actor: string;
      readonly created: boolean;
      /** The fields the write set (on creation, those given). */
      readonly fields: readonly TaskField[];
      readonly task: Task;
    };

/**
 * Where the store announces its writes of messages, approvals and tasks:
 * each write path calls `after(q, notice)` inside its transaction, and the
 * notice reaches the listener only once that transaction has committed
 * (SqlTx.afterCommit), so a write that is undone or replayed from an
 * idempotency record announces nothing. One listener: the daemon's event bus.
 */
export class StoreNotices {
  private listener: ((n: StoreNotice) => void) | null = null;

  connect(listener: (n: StoreNotice) => void): void {
    this.listener = listener;
  }

  after(q: SqlTx, notice: StoreNotice): void {
    q.afterCommit(() => this.listener?.(notice));
  }
}
