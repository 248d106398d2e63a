import type { ActionDescriptor, InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { taskCreate, taskGet, taskList, taskUpdate } from '../../catalog/domains/task.js';
import type { projectCreate, projectGet, projectList } from '../../catalog/domains/project.js';
import type { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import type {
  approvalDecide,
  approvalGet,
  approvalList,
  approvalRequest,
} from '../../catalog/domains/approval.js';
import type {
  workflowPlan,
  workflowRun,
  workflowStep,
  workflowTrigger,
} from '../../catalog/domains/workflow.js';
import type {
  scheduledMessageCancel,
  scheduledMessageCreate,
  scheduledMessageGet,
  scheduledMessageList,
  scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';

/** A server call has exactly the input and output types of its catalog action. */
type Call<D extends ActionDescriptor> = (input: InputOf<D>) => Promise<OutputOf<D>>;

/**
 * The narrow team-server API: the only way handlers reach tasks, projects and
 * reviews. One instance is bound to one caller (server id + agent id), so the
 * implementation owns scoping, idempotency records and pagination cursors —
 * exactly what a remote team server would own. The embedded SQLite store
 * implements it today; a remote client can replace it without touching handlers.
 */
export interface ServerApi {
  createTask: Call<typeof taskCreate>;
  getTask: Call<typeof taskGet>;
  listTasks: Call<typeof taskList>;
  updateTask: Call<typeof taskUpdate>;
  createProject: Call<typeof projectCreate>;
  getProject: Call<typeof projectGet>;
  listProjects: Call<typeof projectList>;
  addReview: Call<typeof reviewAdd>;
  listReviews: Call<typeof reviewList>;
  createSchedule: Call<typeof scheduledMessageCreate>;
  getSchedule: Call<typeof scheduledMessageGet>;
  listSchedules: Call<typeof scheduledMessageList>;
  cancelSchedule: Call<typeof scheduledMessageCancel>;
  listScheduleRuns: Call<typeof scheduledMessageRuns>;
  requestApproval: Call<typeof approvalRequest>;
  getApproval: Call<typeof approvalGet>;
  listApprovals: Call<typeof approvalList>;
  decideApproval: Call<typeof approvalDecide>;
  /** Workflow actions: each takes an op; WORKFLOW_OP_MATRIX says which ops only read. */
  workflowPlan: Call<typeof workflowPlan>;
  workflowTrigger: Call<typeof workflowTrigger>;
  workflowRun: Call<typeof workflowRun>;
  workflowStep: Call<typeof workflowStep>;
  /**
   * Runs a daemon-local effect (a profile edit) under this caller's
   * idempotency record for `action`: a repeated key replays the first result.
   * `apply` runs inside the record's transaction; on a shared database that
   * transaction may be re-run after a serialization failure, and `apply` with it.
   */
  idempotent<T>(
    action: string,
    input: { idempotencyKey?: string },
    apply: () => T | Promise<T>,
  ): Promise<T>;
}

/** What a person (the operator API) may do with approvals, on any server. */
export interface ApprovalOperatorApi {
  decideAsOperator(
    id: string,
    decision: 'approve' | 'reject',
    note: string | null,
    decidedBy: string,
  ): Promise<OutputOf<typeof approvalGet>>;
  getAsOperator(id: string): Promise<OutputOf<typeof approvalGet>>;
  /** The servers that hold approval requests (at most `limit`), for a person's view across servers. */
  serversAsOperator(limit: number): Promise<string[]>;
  /** How many requests wait on each server that has any (at most `limit` servers): what the console says is waiting. */
  pendingAsOperator(limit: number): Promise<{ serverId: string; pending: number }[]>;
}

/** Who is calling the server API. */
export interface Caller {
  readonly serverId: string;
  readonly agentId: string;
}
