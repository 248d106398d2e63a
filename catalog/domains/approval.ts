import { catalogDomain } from '../domain.js';
import { LIMITS, textLimit } from '../limits.js';
import { defineAction } from '../descriptor.js';
import {
  idSchema,
  idempotencySelectorProps,
  pageInputProps,
  pageOutputProps,
  timestampSchema,
  rowRevisionSchema,
} from '../common.js';

/** agent:<id> or human:<handle>, bounded like message authors. */
const authorSchema = {
  type: 'string',
  maxLength: 6 + LIMITS.agentId.chars,
  'x-maxJsonBytes': 6 + LIMITS.agentId.bytes,
} as const;
const statusSchema = {
  type: 'string',
  enum: ['pending', 'approved', 'denied', 'expired', 'cancelled'],
} as const;

/**
 * The most bytes (as JSON spells it, UTF-8) of each text of a runtime's own
 * request the inbox keeps, after masking; a longer text keeps its head and
 * says how much was cut.
 */
export const NATIVE_VIEW_BYTES = {
  command: 4096,
  cwd: 1024,
  diff: 8192,
  toolName: 256,
  toolInput: 4096,
  reason: 1024,
} as const;

/** A masked text bounded in bytes: `cut` is null when it is whole, else how much of it is kept. */
const boundedText = (bytes: number) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['text', 'cut'],
    properties: {
      text: { type: 'string', 'x-maxJsonBytes': bytes },
      cut: {
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['keptBytes', 'totalBytes'],
        properties: { keptBytes: { type: 'integer' }, totalBytes: { type: 'integer' } },
      },
    },
  }) as const;

/** Who asked and what, for a request a runtime made itself (its own permission prompt); null for one an agent filed. */
const nativeSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['runtime', 'turnId', 'threadId', 'subagentId', 'delegated', 'kind', 'view', 'scope'],
  properties: {
    runtime: { type: 'string', maxLength: 64 },
    turnId: { type: ['string', 'null'], maxLength: 64 },
    threadId: { type: ['string', 'null'], maxLength: 128 },
    subagentId: { type: ['string', 'null'], maxLength: 128 },
    delegated: { type: 'boolean', description: 'Asked by a delegated child thread or subagent.' },
    kind: { type: 'string', enum: ['command', 'file_change', 'tool'] },
    view: {
      type: 'object',
      additionalProperties: false,
      description: 'What the runtime asks to do, masked by the result gate and bounded in bytes.',
      properties: {
        command: boundedText(NATIVE_VIEW_BYTES.command),
        cwd: boundedText(NATIVE_VIEW_BYTES.cwd),
        diff: boundedText(NATIVE_VIEW_BYTES.diff),
        toolName: boundedText(NATIVE_VIEW_BYTES.toolName),
        toolInput: boundedText(NATIVE_VIEW_BYTES.toolInput),
        reason: boundedText(NATIVE_VIEW_BYTES.reason),
      },
    },
    scope: {
      type: ['string', 'null'],
      enum: ['once', 'turn', null],
      description: 'For an approval: this request only, or the rest of the turn for its kind.',
    },
  },
} as const;

export const approvalSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'title',
    'detail',
    'status',
    'requestedBy',
    'decidedBy',
    'note',
    'expiresAt',
    'decidedAt',
    'revision',
    'createdAt',
    'updatedAt',
    'native',
  ],
  properties: {
    id: idSchema,
    title: { type: 'string', ...textLimit(LIMITS.approvalTitle) },
    detail: { type: 'string', ...textLimit(LIMITS.approvalDetail) },
    status: statusSchema,
    requestedBy: authorSchema,
    decidedBy: { ...authorSchema, type: ['string', 'null'] },
    note: {
      type: ['string', 'null'],
      ...textLimit(LIMITS.decisionNote),
      description:
        "Why: what the person who decided wrote, or the daemon's reason (policy, deadline, turn ended).",
    },
    expiresAt: timestampSchema,
    decidedAt: { type: ['string', 'null'], maxLength: 40, 'x-maxJsonBytes': 40 },
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    native: nativeSchema,
  },
} as const;

const approvalOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['approval'],
  properties: { approval: approvalSchema },
} as const;

export const decisionSchema = { type: 'string', enum: ['approve', 'reject'] } as const;

export const approvalRequest = defineAction({
  domain: 'approval',
  action: 'request',
  summary: 'Ask a person to approve something before you do it.',
  help: 'Returns a pending approval. A person decides with `agentteam approval decide ID approve|reject`; poll approval get for the decision. Undecided requests expire (default 24 h, expiresInSeconds 60..604800).',
  example: {
    title: 'Deploy release 2.4 to production',
    detail: 'All checks green; rollback plan in task_01J9Z3K8Q2.',
    idempotencyKey: 'deploy-2.4',
  },
  risk: 'side_effect',
  result: {
    hint: 'The approval was too large to return; read it back with approval get.',
    next: { action: 'approval get', input: { id: '<approval id>' } },
  },
  receipt: { entity: 'approval', selectors: ['id', 'revision'], retrieval: 'approval get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: {
      title: { type: 'string', minLength: 1, ...textLimit(LIMITS.approvalTitle) },
      detail: { type: 'string', ...textLimit(LIMITS.approvalDetail) },
      expiresInSeconds: { type: 'integer', minimum: 60, maximum: 604800 },
      ...idempotencySelectorProps,
    },
  },
  output: approvalOutput,
});

export const approvalGet = defineAction({
  domain: 'approval',
  action: 'get',
  summary: 'Read one approval and its decision.',
  help: "status is pending until a person decides (approved or denied, with an optional note), the request expires, or (a runtime's own request) its turn ends: cancelled.",
  example: { id: 'appr_01J9Z3K8Q2' },
  risk: 'read',
  result: {
    hint: 'The approval is larger than the result budget, which its input limits are meant to rule out; no smaller read of one approval exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema },
  },
  output: approvalOutput,
});

export const approvalList = defineAction({
  domain: 'approval',
  action: 'list',
  summary: 'List approvals, newest first.',
  help: 'Filters by status. Ordered by createdAt descending, then id. Continue with nextCursor and the same filter.',
  example: { status: 'pending', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: { status: statusSchema, ...pageInputProps },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['approvals', 'hasMore'],
    properties: { approvals: { type: 'array', items: approvalSchema }, ...pageOutputProps },
  },
});

export const approvalDecide = defineAction({
  domain: 'approval',
  action: 'decide',
  summary: "Decide another agent's pending approval.",
  help: "Usually people decide (agentteam approval decide). An agent may decide a request another agent filed, never its own and never a runtime's own request (forbidden). A decided request is already_decided; an expired one is expired.",
  example: { id: 'appr_01J9Z3K8Q2', decision: 'approve', note: 'Go ahead after 18:00.' },
  risk: 'side_effect',
  result: {
    hint: 'The decision was recorded but the approval is too large to return; read it back with approval get.',
    next: { action: 'approval get', input: { id: '<approval id>' } },
  },
  receipt: { entity: 'approval', selectors: ['id', 'revision'], retrieval: 'approval get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'decision'],
    properties: {
      id: idSchema,
      decision: decisionSchema,
      note: { type: 'string', ...textLimit(LIMITS.decisionNote) },
      ...idempotencySelectorProps,
    },
  },
  output: approvalOutput,
});

export const approvalCatalog = catalogDomain(
  { approval: 'Ask a person to approve; read the decision.' },
  [approvalRequest, approvalGet, approvalList, approvalDecide],
);
