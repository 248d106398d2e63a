import { checkCronRule } from '../../lib/cron.js';
import type { TriggerRow } from './rows.js';

export interface Shape {
  kind: TriggerRow['kind'];
  cron?: string | undefined;
  timeZone?: string | undefined;
  target?: string | undefined;
}

/** What a trigger of each kind needs; returned as problems so validate can report them all. */
export function shapeProblems(t: Shape): { path: string; message: string }[] {
  const p: { path: string; message: string }[] = [];
  const only = (fields: (keyof Shape)[]) => {
    for (const f of ['cron', 'timeZone', 'target'] as const) {
      if (!fields.includes(f) && t[f] !== undefined)
        p.push({ path: `/${f}`, message: `a ${t.kind} trigger does not take ${f}` });
    }
  };
  if (t.kind === 'schedule') {
    only(['cron', 'timeZone']);
    if (t.cron === undefined) p.push({ path: '/cron', message: 'a schedule trigger needs cron' });
    if (t.timeZone === undefined)
      p.push({ path: '/timeZone', message: 'a schedule trigger needs an explicit timeZone' });
    if (t.cron !== undefined && t.timeZone !== undefined) {
      try {
        checkCronRule({ cron: t.cron, timeZone: t.timeZone });
      } catch (err) {
        p.push({
          path: '/cron',
          message: `invalid cron rule or time zone: ${(err as Error).message}`,
        });
      }
    }
  } else if (t.kind === 'message') {
    only(['target']);
    if (t.target === undefined)
      p.push({ path: '/target', message: 'a message trigger needs target' });
  } else {
    only([]);
  }
  return p;
}
