import { operatorRoute } from './route.js';

/** Agent tools as the operator sees them: the registry's inventory, the activity log, answering a question. */

/** MCP tool annotations: behaviour hints (catalog/mcp-tool-descriptor.ts's ToolAnnotations). */
const annotationsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string' },
    readOnlyHint: { type: 'boolean' },
    destructiveHint: { type: 'boolean' },
    idempotentHint: { type: 'boolean' },
    openWorldHint: { type: 'boolean' },
  },
} as const;

/** The last load of $AGENTTEAM_HOME/tools/: what loaded, and each refused file with where in it. */
export const declarationReportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['dir', 'loaded', 'problems'],
  properties: {
    dir: { type: 'string' },
    loaded: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'file', 'transport'],
        properties: {
          name: { type: 'string' },
          file: { type: 'string' },
          transport: { enum: ['command', 'builtin'] },
        },
      },
    },
    problems: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'message'],
        properties: {
          file: { type: 'string' },
          pointer: {
            type: 'string',
            description: 'JSON pointer of the problem, when the file parsed.',
          },
          line: { type: 'integer', description: 'For a file that is not valid JSON.' },
          column: { type: 'integer' },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;

/** One entry of the tool activity log (also the data of a tool.* event). */
const toolEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['seq', 'type', 'at', 'serverId', 'agent', 'tool', 'text'],
  properties: {
    seq: { type: 'integer', minimum: 1 },
    type: { enum: ['tool.shown', 'tool.asked', 'tool.answered'] },
    at: { type: 'string' },
    serverId: { type: 'string' },
    agent: { type: 'string' },
    tool: { type: 'string' },
    text: { type: 'string' },
    askId: { type: 'string' },
  },
} as const;

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
    additionalProperties: false,
    required: ['tools', 'declarations'],
    properties: {
      tools: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'source', 'transport', 'owner', 'annotations', 'description'],
          properties: {
            name: { type: 'string' },
            source: { enum: ['builtin', 'declared', 'client'] },
            transport: { type: 'string' },
            owner: { type: 'string' },
            file: { type: 'string' },
            annotations: annotationsSchema,
            description: { type: 'string' },
          },
        },
      },
      declarations: declarationReportSchema,
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
    additionalProperties: false,
    required: ['events', 'pending'],
    properties: {
      events: { type: 'array', items: toolEventSchema },
      pending: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['askId', 'serverId', 'agent', 'tool', 'question'],
          properties: {
            askId: { type: 'string' },
            serverId: { type: 'string' },
            agent: { type: 'string' },
            tool: { type: 'string' },
            question: { type: 'string' },
          },
        },
      },
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
