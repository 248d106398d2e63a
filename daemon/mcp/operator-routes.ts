import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/json-body.js';
import type { ErrorObject } from 'ajv';
import { ENTITY_ID_PATTERN } from '../../catalog/ids.js';
import {
  AUTHOR_PATTERN,
  MESSAGE_ID_PATTERN,
  TARGET_PATTERN,
  messageSend,
} from '../../catalog/mcp-tools.js';
import { sharedValidator } from '../../lib/validator.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { MessageApi } from '../store/messages.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** The operator's (a person's) side of messages: post as human:<handle>, read a target's history. */
export interface MessageServices {
  readonly messages: MessageApi;
}

const SERVER_PATTERN = ENTITY_ID_PATTERN;

const postSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['serverId', 'target', 'author', 'content'],
  properties: {
    serverId: { type: 'string', pattern: SERVER_PATTERN },
    target: { type: 'string', pattern: TARGET_PATTERN },
    author: { type: 'string', pattern: AUTHOR_PATTERN.replace('(agent|human)', 'human') },
    // The same content limits as message_send: a person's message must fit a page of one just the same.
    content: messageSend.inputSchema.properties.content,
    replyTo: { type: 'string', pattern: MESSAGE_ID_PATTERN },
  },
} as const;

const historySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['serverId', 'target'],
  properties: {
    serverId: { type: 'string', pattern: SERVER_PATTERN },
    target: { type: 'string', pattern: TARGET_PATTERN },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    cursor: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

const ajv = sharedValidator();
const checkPost = ajv.compile(postSchema);
const checkHistory = ajv.compile(historySchema);

function invalid(errors: ErrorObject[] | null | undefined): ExecError {
  return new ExecError('validation_failed', 'the request does not match the schema', {
    details: (errors ?? []).map((e) => ({
      path:
        e.keyword === 'required'
          ? `${e.instancePath}/${String(e.params.missingProperty)}`
          : e.instancePath,
      message: e.message ?? 'invalid',
    })),
  });
}

function fail(c: Context, err: unknown): Response {
  const body = errorBody(err);
  return c.json({ ok: false, error: body }, (err instanceof ExecError ? err.status : 500) as 400);
}

/** Registers /api/v1/messages; the operator-token middleware on /api/v1 runs first. */
export function registerMessageOperatorRoutes(
  app: Hono<RuntimeEnv>,
  services: MessageServices,
): void {
  app.post('/api/v1/messages', async (c) => {
    try {
      const body = await readJsonBody(c);
      if (!checkPost(body)) throw invalid(checkPost.errors);
      const b = body as {
        serverId: string;
        target: string;
        author: string;
        content: string;
        replyTo?: string;
      };
      return c.json({ ok: true, data: { message: await services.messages.send(b) } }, 201);
    } catch (err) {
      return fail(c, err);
    }
  });
  app.get('/api/v1/messages', async (c) => {
    try {
      const q = c.req.query();
      const query: Record<string, unknown> = { ...q };
      if (q.limit !== undefined)
        query.limit = /^\d{1,3}$/.test(q.limit) ? Number(q.limit) : q.limit;
      if (!checkHistory(query)) throw invalid(checkHistory.errors);
      const h = query as { serverId: string; target: string; limit?: number; cursor?: string };
      return c.json({ ok: true, data: await services.messages.history(h) });
    } catch (err) {
      return fail(c, err);
    }
  });
}
