import { approvalGet } from '../domains/approval.js';
import { LIMITS } from '../limits.js';
import { operatorRoute } from './route.js';

/** The people's side of approvals: decide across servers, see what waits where. */

const idParam = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^appr_[0-9A-Za-z]{6,40}$' } },
} as const;

// Listed before `approvals.get`: its `:id` would otherwise take these names.
export const approvalsServers = operatorRoute({
  name: 'approvals.servers',
  method: 'GET',
  path: '/api/v1/approvals/servers',
  summary: 'The servers that hold approval requests (at most 100).',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['servers'],
    properties: { servers: { type: 'array', items: { type: 'string' } } },
  },
});

export const approvalsPending = operatorRoute({
  name: 'approvals.pending',
  method: 'GET',
  path: '/api/v1/approvals/pending',
  summary: 'How many requests wait on each server that has any (at most 100 servers).',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['servers'],
    properties: {
      servers: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['serverId', 'pending'],
          properties: { serverId: { type: 'string' }, pending: { type: 'integer' } },
        },
      },
    },
  },
});

export const approvalsGet = operatorRoute({
  name: 'approvals.get',
  method: 'GET',
  path: '/api/v1/approvals/:id',
  summary: 'One approval request on any server.',
  permission: 'operator',
  params: idParam,
  output: approvalGet.output,
});

export const approvalsDecide = operatorRoute({
  name: 'approvals.decide',
  method: 'POST',
  path: '/api/v1/approvals/:id/decide',
  summary:
    'Approve or reject a request as a person, first decider wins (decidedBy defaults to human:operator).',
  permission: 'operator',
  params: idParam,
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['decision'],
    properties: {
      decision: { enum: ['approve', 'reject'] },
      note: { type: 'string', maxLength: LIMITS.decisionNote.chars },
      decidedBy: { type: 'string', pattern: '^human:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' },
      scope: {
        enum: ['once', 'turn'],
        description:
          "A runtime's own request: approve this one only (default), or every request of its kind for the rest of its turn.",
      },
    },
  },
  output: approvalGet.output,
});
