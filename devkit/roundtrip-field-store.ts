import { strict as assert } from 'node:assert';
import { openDb } from '../daemon/store/db.js';
import type { ServerApi } from '../daemon/store/server-api.js';
import { TeamServer } from '../daemon/store/team-server.js';
import { SqliteSql } from '../daemon/store/sqlite-sql.js';
import { loadInputValidator, type InputCheck } from '../lib/input-validators.js';
import { decode, type FieldRule } from './roundtrip.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../daemon/domains/list.js';

export interface Field {
  readonly name: string;
  readonly path: string;
  readonly rule: FieldRule;
  /** Sends an input with the string in place; returns whether it was accepted, after checking the read back. */
  run(s: string, escaped: boolean): Promise<boolean>;
  /** Rows in the field's table, to prove a refusal left no trace. */
  count(): number;
  /** A check of meaning past the limits that the store makes (a blank step name), if any. */
  readonly meaningful?: (s: string) => boolean;
  /** Fewer cases than RUNS, for a field whose every accepted case writes a file. */
  readonly runs?: number;
}

/**
 * The in-memory store every in-process field writes to, with what a field
 * needs around it: the generated validators, row counts and single-column
 * reads of its tables.
 */
export interface FieldStore {
  readonly db: ReturnType<typeof openDb>;
  readonly sql: SqliteSql;
  readonly api: ServerApi;
  /** Another agent of the same server: an agent cannot decide its own request. */
  readonly other: ServerApi;
  /** The store's clock, one millisecond later on every reading. */
  now(): number;
  rows(table: string): number;
  column(table: string, name: string, id: string): unknown;
  /** Validates as the daemon does; refused input must name the field. */
  validate(action: string, text: string, path: string): Record<string, unknown> | undefined;
}

export async function openFieldStore(): Promise<FieldStore> {
  const db = openDb(':memory:', STORE_MIGRATIONS);
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => ++clock;
  const sql = new SqliteSql(db, ':memory:');
  const server = await TeamServer.open(sql, now, STORE_DOMAINS);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const other = server.forCaller({ serverId: 's1', agentId: 'a2' });
  const counters = new Map<string, () => number>();
  const rows = (table: string) => {
    let f = counters.get(table);
    if (!f) {
      const stmt = db.prepare(`SELECT count(*) AS n FROM ${table}`);
      f = () => (stmt.get() as { n: number }).n;
      counters.set(table, f);
    }
    return f();
  };
  const columnReads = new Map<string, ReturnType<typeof db.prepare>>();
  const column = (table: string, name: string, id: string) => {
    const key = `${table}.${name}`;
    let stmt = columnReads.get(key);
    if (!stmt) {
      stmt = db.prepare(`SELECT ${name} AS v FROM ${table} WHERE id = ?`);
      columnReads.set(key, stmt);
    }
    return (stmt.get(id) as { v: unknown }).v;
  };
  const checks = new Map<string, InputCheck>();
  for (const [d, a] of [
    ['task', 'create'],
    ['task', 'update'],
    ['project', 'create'],
    ['review', 'add'],
    ['approval', 'request'],
    ['approval', 'decide'],
    ['scheduled-message', 'create'],
    ['workflow', 'plan'],
    ['workflow', 'step'],
    ['agent', 'create'],
    ['agent', 'update'],
  ]) {
    checks.set(`${d} ${a}`, (await loadInputValidator(d!, a!))!);
  }
  function validate(
    action: string,
    text: string,
    path: string,
  ): Record<string, unknown> | undefined {
    const input = decode(text);
    const verdict = checks.get(action)!(input);
    if (verdict.ok) return input;
    assert.ok(
      verdict.details.some((x) => x.path === path),
      `${action}: refusal names ${path}: ${JSON.stringify(verdict.details)}`,
    );
    return undefined;
  }
  return { db, sql, api, other, now, rows, column, validate };
}
