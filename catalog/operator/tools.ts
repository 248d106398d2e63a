import { operatorRoute } from './route.js';

/** Agent tools as the operator sees them: the registry's inventory, the activity log, answering a question. */

/** Longest answer to a tool's question, in characters. */
export const TOOL_ANSWER_MAX = 20_000;

export const toolsList = operatorRoute({
  name: 'tools.list',
  method: 'GET',
  path: '/api/v1/tools',
  summary: 'Every registered tool with where it comes from, and the last declaration report.',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['tools', 'declarations'],
    properties: {
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'source', 'transport', 'owner', 'annotations', 'description'],
          properties: {
            name: { type: 'string' },
            source: { enum: ['builtin', 'declared', 'client'] },
            transport: { type: 'string' },
            owner: { type: 'string' },
            file: { type: 'string' },
            annotations: { description: 'The MCP tool annotations.' },
            description: { type: 'string' },
          },
        },
      },
      declarations: { description: 'The last declaration report: dir, loaded, problems.' },
    },
  },
});

export const toolsLog = operatorRoute({
  name: 'tools.log',
  method: 'GET',
  path: '/api/v1/tools/log',
  summary: 'The activity log (shown text, questions, answers) and the questions still waiting.',
  permission: 'operator',
  query: {
    type: 'object',
    // 1 to 500 and a non-negative integer, checked by the handler as numbers.
    properties: { limit: { type: 'string' }, after: { type: 'string' } },
  },
  output: {
    type: 'object',
    required: ['events', 'pending'],
    properties: {
      events: { type: 'array', items: { description: 'One activity event.' } },
      pending: { type: 'array', items: { description: 'One question still waiting.' } },
    },
  },
});

export const toolsAnswer = operatorRoute({
  name: 'tools.answer',
  method: 'POST',
  path: '/api/v1/tools/asks/:id/answer',
  summary: "Answers a tool's waiting question.",
  permission: 'operator',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: { type: 'string' } },
  },
  body: {
    type: 'object',
    required: ['answer'],
    properties: { answer: { type: 'string', minLength: 1, maxLength: TOOL_ANSWER_MAX } },
  },
  output: { type: 'object', required: ['answered'], properties: { answered: { const: true } } },
});
