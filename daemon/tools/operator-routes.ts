import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/json-body.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { ToolRegistry } from './registry.js';
import type { ToolActivity } from './activity.js';
import type { DeclaredTools } from './declarations.js';
import type { RuntimeEnv } from '../auth/principal.js';

interface ToolOperatorDeps {
  readonly registry: ToolRegistry;
  readonly declared: DeclaredTools;
  readonly activity: ToolActivity;
}

const MAX_ANSWER = 20_000;

function sourceOf(ownerKey: string): string {
  if (ownerKey === 'builtin') return 'builtin';
  if (ownerKey.startsWith('declared:')) return 'declared';
  return 'client';
}

function fail(c: Context, err: unknown): Response {
  return c.json(
    { ok: false, error: errorBody(err) },
    (err instanceof ExecError ? err.status : 500) as 400,
  );
}

/**
 * The operator's view of agent tools: the registry's inventory with where
 * each entry comes from and the last declaration report; the activity log
 * (shown text, questions, answers); answering a question.
 */
export function registerToolOperatorRoutes(app: Hono<RuntimeEnv>, deps: ToolOperatorDeps): void {
  app.get('/api/v1/tools', (c) => {
    const report = deps.declared.last;
    const files = new Map(report.loaded.map((d) => [d.name, d]));
    const tools = deps.registry.list().map((t) => ({
      name: t.name,
      source: sourceOf(t.owner.key),
      transport: files.get(t.name)?.transport ?? (t.owner.key === 'builtin' ? 'builtin' : 'client'),
      owner: t.owner.label,
      ...(files.has(t.name) ? { file: files.get(t.name)!.file } : {}),
      annotations: t.annotations,
      description: t.description,
    }));
    return c.json({ ok: true, data: { tools, declarations: report } });
  });

  app.get('/api/v1/tools/log', (c) => {
    const limit = Number(c.req.query('limit') ?? 100);
    const after = Number(c.req.query('after') ?? 0);
    if (
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > 500 ||
      !Number.isInteger(after) ||
      after < 0
    ) {
      return fail(
        c,
        new ExecError('validation_failed', 'limit must be 1..500 and after a non-negative integer'),
      );
    }
    return c.json({
      ok: true,
      data: { events: deps.activity.log(limit, after), pending: deps.activity.pending() },
    });
  });

  app.post('/api/v1/tools/asks/:id/answer', async (c) => {
    let body: unknown;
    try {
      body = await readJsonBody(c);
    } catch (err) {
      return fail(
        c,
        err instanceof ExecError
          ? err
          : new ExecError('invalid_json', 'the body must be {"answer": "..."}'),
      );
    }
    const answer = (body as { answer?: unknown } | null)?.answer;
    if (typeof answer !== 'string' || answer.length === 0 || answer.length > MAX_ANSWER) {
      return fail(
        c,
        new ExecError(
          'validation_failed',
          `answer must be a string of 1 to ${MAX_ANSWER} characters`,
          { details: [{ path: '/answer', message: 'required string' }] },
        ),
      );
    }
    if (!deps.activity.answer(c.req.param('id') ?? '', answer)) {
      return fail(
        c,
        new ExecError('not_found', 'no question with this id is waiting for an answer'),
      );
    }
    return c.json({ ok: true, data: { answered: true } });
  });
}
