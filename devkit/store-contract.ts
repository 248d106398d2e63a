import { strict as assert } from 'node:assert';
import type { TestContext } from 'node:test';
import { startInProc, type Caller, type InProc } from './inproc.js';
import { freshDatabase } from './pg.js';

/**
 * The store contract: one case table, run unchanged against the embedded
 * SQLite store and a real PostgreSQL. Every case gets two daemons' worth of
 * services (A and B, each with its own app, credentials and clock) on one
 * store — the same file for SQLite, the same database for PostgreSQL — and
 * talks to them through the Exec route, so what is compared is what a
 * runtime sees: envelopes, error codes, cursors, revisions.
 */
export interface Pair {
  readonly a: InProc;
  readonly b: InProc;
  readonly callA: Caller;
  readonly callB: Caller;
  /** Moves both daemons' clocks (each has its own fake clock). */
  advance(ms: number): void;
}

interface Backend {
  readonly name: string;
  pair(t: TestContext): Promise<Pair>;
}

async function pairOn(t: TestContext, store: string | undefined): Promise<Pair> {
  const a = await startInProc(t, store ? { store } : {});
  // SQLite: B opens the same store file (its own connection); PostgreSQL: the same database.
  const b = await startInProc(t, store ? { store } : { shareStoreOf: a });
  return {
    a,
    b,
    callA: await a.runtime(),
    callB: await b.runtime('s1', 'a2'),
    advance(ms) {
      a.clock.advance(ms);
      b.clock.advance(ms);
    },
  };
}

export const BACKENDS: Backend[] = [
  { name: 'sqlite', pair: (t) => pairOn(t, undefined) },
  { name: 'postgres', pair: async (t) => pairOn(t, await freshDatabase()) },
];

export const ok = (r: { status: number; json: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data;
};
export const code = (r: { status: number; json: any }) => r.json?.error?.code as string | undefined;

/** Strings a store must keep exactly: NUL and the escape it uses, astral characters, JSON metacharacters. */
export const AWKWARD = [
  'nul\u0000inside',
  'esc\u0001\u0002seq',
  '😀 astral 𝄞',
  'quote " backslash \\ newline \n tab \t',
  'ünïcödé',
  '\u0001',
];

export interface Case {
  readonly name: string;
  run(p: Pair): Promise<void>;
}
