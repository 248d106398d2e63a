import { Cron } from 'croner';

/** A cron rule read in an explicit IANA time zone (croner: 5 fields, or 6 with seconds first). */
interface CronRule {
  readonly cron: string;
  readonly timeZone: string;
}

export class CronRuleError extends Error {
  override name = 'CronRuleError';
}

/** Upper bound on the occurrences counted for one catch-up run (a rule every second over a long outage). */
const MISSED_COUNT_CAP = 10_000;

function compile(rule: CronRule): Cron {
  try {
    const c = new Cron(rule.cron, { timezone: rule.timeZone, paused: true });
    // An unknown zone only fails when a date is converted: force that now.
    c.nextRun(new Date(0));
    return c;
  } catch (err) {
    throw new CronRuleError((err as Error).message);
  }
}

/** Throws CronRuleError naming what is wrong with the rule or zone. */
export function checkCronRule(rule: CronRule): void {
  if (compile(rule).nextRun(new Date()) === null) throw new CronRuleError('the rule never fires');
}

/** The first occurrence strictly after `afterMs`, or null when the rule has none. */
export function nextOccurrence(rule: CronRule, afterMs: number): number | null {
  return compile(rule).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** How many occurrences fall in [fromMs, toMs] (at least the one at fromMs), capped. */
export function countOccurrences(rule: CronRule, fromMs: number, toMs: number): number {
  const c = compile(rule);
  let n = 1;
  let t = fromMs;
  while (n < MISSED_COUNT_CAP) {
    const next = c.nextRun(new Date(t))?.getTime();
    if (next === undefined || next > toMs) break;
    n++;
    t = next;
  }
  return n;
}
