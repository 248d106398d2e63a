import { catalogDomain } from '../domain.js';
import { LIMITS, textLimit } from '../limits.js';
import { defineAction } from '../descriptor.js';
import {
  cronSchema,
  idSchema,
  idempotencySelectorProps,
  timeZoneSchema,
  pageInputProps,
  pageOutputProps,
  timestampSchema,
  rowRevisionSchema,
} from '../common.js';
import { TARGET_PATTERN } from '../mcp-tools.js';

/** RFC 3339 with an explicit offset or Z; the store also checks that it names a real instant. */
export const RFC3339_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$';

const targetSchema = {
  type: 'string',
  pattern: TARGET_PATTERN,
  maxLength: 140,
  'x-maxJsonBytes': 140,
  description: 'Exact target the message is delivered to.',
} as const;
const statusSchema = { type: 'string', enum: ['active', 'completed', 'cancelled'] } as const;

export const scheduledMessageSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'target',
    'content',
    'at',
    'cron',
    'timeZone',
    'status',
    'nextRunAt',
    'createdBy',
    'revision',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: idSchema,
    target: { type: 'string', maxLength: 140, 'x-maxJsonBytes': 140 },
    content: { type: 'string', ...textLimit(LIMITS.messageContent) },
    at: {
      type: ['string', 'null'],
      maxLength: 40,
      'x-maxJsonBytes': 40,
      description: 'The one delivery time of a one-off schedule.',
    },
    cron: {
      type: ['string', 'null'],
      ...textLimit(LIMITS.cron),
      description: 'The cron rule of a repeating schedule.',
    },
    timeZone: {
      type: ['string', 'null'],
      ...textLimit(LIMITS.timeZone),
      description: 'IANA time zone the cron rule is read in.',
    },
    status: statusSchema,
    nextRunAt: {
      type: ['string', 'null'],
      maxLength: 40,
      'x-maxJsonBytes': 40,
      description: 'When the daemon delivers next; null once completed or cancelled.',
    },
    createdBy: {
      type: 'string',
      maxLength: 6 + LIMITS.agentId.chars,
      'x-maxJsonBytes': 6 + LIMITS.agentId.bytes,
    },
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const scheduledRunSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'scheduleId',
    'dueAt',
    'attemptedAt',
    'outcome',
    'late',
    'missed',
    'messageId',
    'error',
  ],
  properties: {
    id: idSchema,
    scheduleId: idSchema,
    dueAt: timestampSchema,
    attemptedAt: {
      ...timestampSchema,
      description: 'When delivery was attempted (the record time for a run not attempted yet).',
    },
    outcome: { type: 'string', enum: ['delivered', 'failed'] },
    late: {
      type: 'boolean',
      description:
        'True when the run happened more than a second after it was due (after downtime).',
    },
    missed: {
      type: 'integer',
      minimum: 1,
      description: 'Occurrences this one run stands for (more than 1 after downtime).',
    },
    messageId: { type: ['string', 'null'], maxLength: 64, 'x-maxJsonBytes': 64 },
    error: { type: ['string', 'null'], ...textLimit(LIMITS.runError) },
  },
} as const;

const scheduleOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['scheduledMessage'],
  properties: { scheduledMessage: scheduledMessageSchema },
} as const;

export const scheduledMessageCreate = defineAction({
  domain: 'scheduled-message',
  action: 'create',
  summary: 'Schedule a message to an exact target, once or on a cron rule.',
  help: 'Give either at (RFC 3339, in the future) or cron with timeZone (IANA name, e.g. Europe/Berlin; 5 or 6 fields). The daemon delivers it itself; after downtime one late run stands for the missed window.',
  example: {
    target: 'channel:standup',
    content: 'Standup in 5 minutes',
    cron: '55 8 * * 1-5',
    timeZone: 'Europe/Berlin',
    idempotencyKey: 'standup-reminder',
  },
  risk: 'side_effect',
  result: {
    hint: 'The schedule was too large to return; read it back with scheduled-message get.',
    next: { action: 'scheduled-message get', input: { id: '<schedule id>' } },
  },
  receipt: {
    entity: 'scheduledMessage',
    selectors: ['id', 'revision'],
    retrieval: 'scheduled-message get',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'content'],
    properties: {
      target: targetSchema,
      content: {
        type: 'string',
        minLength: 1,
        ...textLimit(LIMITS.messageContent),
        description: 'Delivered as a message, so bounded like message_send content.',
      },
      at: { type: 'string', pattern: RFC3339_PATTERN, maxLength: 40, 'x-maxJsonBytes': 40 },
      cron: cronSchema,
      timeZone: timeZoneSchema,
      ...idempotencySelectorProps,
    },
  },
  output: scheduleOutput,
});

export const scheduledMessageGet = defineAction({
  domain: 'scheduled-message',
  action: 'get',
  summary: 'Read one scheduled message by id.',
  help: 'Returns the schedule with its status and next run time.',
  example: { id: 'sched_01J9Z3K8Q2' },
  risk: 'read',
  result: {
    hint: 'The schedule is larger than the result budget, which its input limits are meant to rule out; no smaller read of one schedule exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema },
  },
  output: scheduleOutput,
});

export const scheduledMessageList = defineAction({
  domain: 'scheduled-message',
  action: 'list',
  summary: 'List scheduled messages, newest first.',
  help: 'Filters by status and target. Ordered by createdAt descending, then id. Continue with nextCursor and the same filters.',
  example: { status: 'active', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: { status: statusSchema, target: targetSchema, ...pageInputProps },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['scheduledMessages', 'hasMore'],
    properties: {
      scheduledMessages: { type: 'array', items: scheduledMessageSchema },
      ...pageOutputProps,
    },
  },
});

export const scheduledMessageCancel = defineAction({
  domain: 'scheduled-message',
  action: 'cancel',
  summary: 'Cancel a scheduled message so it is never delivered again.',
  help: 'Cancelling an already cancelled schedule returns it unchanged; a completed one-off schedule cannot be cancelled (invalid_transition).',
  example: { id: 'sched_01J9Z3K8Q2' },
  risk: 'side_effect',
  result: {
    hint: 'The schedule was cancelled but is too large to return; read it back with scheduled-message get.',
    next: { action: 'scheduled-message get', input: { id: '<schedule id>' } },
  },
  receipt: {
    entity: 'scheduledMessage',
    selectors: ['id', 'revision'],
    retrieval: 'scheduled-message get',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema, ...idempotencySelectorProps },
  },
  output: scheduleOutput,
});

export const scheduledMessageRuns = defineAction({
  domain: 'scheduled-message',
  action: 'runs',
  summary: 'List the delivery runs of one schedule, newest first.',
  help: 'Ordered by attemptedAt descending, then id. Each run says whether it was delivered, its error, and whether it was a late catch-up run.',
  example: { id: 'sched_01J9Z3K8Q2', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema, ...pageInputProps },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['runs', 'hasMore'],
    properties: { runs: { type: 'array', items: scheduledRunSchema }, ...pageOutputProps },
  },
});

export const scheduledMessageCatalog = catalogDomain(
  { 'scheduled-message': 'Messages delivered later or on a cron rule.' },
  [
    scheduledMessageCreate,
    scheduledMessageGet,
    scheduledMessageList,
    scheduledMessageCancel,
    scheduledMessageRuns,
  ],
);
