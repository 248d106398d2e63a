import { ExecError } from '../errors/exec-error.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { ToolRegistry } from './registry.js';
import type { ToolActivity } from './activity.js';
import type { DeclaredTools } from './declarations.js';

interface ToolOperatorDeps {
  readonly registry: ToolRegistry;
  readonly declared: DeclaredTools;
  readonly activity: ToolActivity;
}

function sourceOf(ownerKey: string): 'builtin' | 'declared' | 'client' {
  if (ownerKey === 'builtin') return 'builtin';
  if (ownerKey.startsWith('declared:')) return 'declared';
  return 'client';
}

/**
 * The operator's view of agent tools: the registry's inventory with where
 * each entry comes from and the last declaration report; the activity log
 * (shown text, questions, answers); answering a question.
 */
export function toolOperatorHandlers(
  deps: ToolOperatorDeps,
): Pick<OperatorHandlers, 'tools.list' | 'tools.log' | 'tools.answer'> {
  const list: OperatorHandlers['tools.list'] = () => {
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
    return {
      tools,
      declarations: { ...report, loaded: [...report.loaded], problems: [...report.problems] },
    };
  };
  const log: OperatorHandlers['tools.log'] = ({ query }) => {
    const limit = Number(query.limit ?? 100);
    const after = Number(query.after ?? 0);
    if (
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > 500 ||
      !Number.isInteger(after) ||
      after < 0
    ) {
      throw new ExecError(
        'validation_failed',
        'limit must be 1..500 and after a non-negative integer',
      );
    }
    return { events: deps.activity.log(limit, after), pending: deps.activity.pending() };
  };

  return {
    'tools.list': list,
    'tools.log': log,
    // The row's schema has checked the answer (1 to 20 000 characters).
    'tools.answer': ({ params, body }) => {
      if (!deps.activity.answer(params.id, body.answer))
        throw new ExecError('not_found', 'no question with this id is waiting for an answer');
      return { answered: true };
    },
  };
}
