import { createRequire } from 'node:module';
import type { Context, Env, Hono } from 'hono';
import {
  OPERATOR_API,
  type OperatorRouteName,
  type OperatorRouteOf,
} from '../../catalog/operator/table.js';
import type {
  OperatorInputOf,
  OperatorOutputOf,
  OperatorRoute,
} from '../../catalog/operator/route.js';
import type { Clock } from '../../lib/clock.js';
import { OPERATOR_VALIDATORS_FILE } from '../../lib/generated.js';
import { toInputCheck, type ValidateFunction } from '../../lib/input-validators.js';
import { ExecError } from '../errors/exec-error.js';
import { readJsonBody } from './json-body.js';

/**
 * A handler of one row: its checked input in, the envelope's data out (or a
 * whole Response, for streams and for answers the result gate has already
 * screened). Errors are thrown; the app's one onError turns them into envelopes.
 */
export type OperatorHandler<R extends OperatorRoute> = (
  input: OperatorInputOf<R>,
  c: Context,
) => OperatorOutputOf<R> | Response | Promise<OperatorOutputOf<R> | Response>;

/** Every row's handler, keyed by the row's name. */
export type OperatorHandlers = {
  readonly [N in OperatorRouteName]: OperatorHandler<OperatorRouteOf<N>>;
};

/** A handler for a row whose part is not running in this daemon (no token analysis, no log tap). */
export function absentRoute(): never {
  throw new ExecError('not_found', 'no such route');
}

const requireValidators = createRequire(import.meta.url);

/**
 * The one dispatcher of the operator API. The app has already checked Host,
 * Origin and the caller for `/api/v1/*`; per row `admit` refuses a caller
 * the row is not open to (a paired device, the unix socket); it then checks the
 * path parameters and the query against the row's generated validators,
 * reads the body (the usual limit and deadline, or the row's own limit) and
 * checks it, calls the handler, and writes `{ok: true, data}` with the row's
 * status. A row without a handler, or a handler without a row, stops the
 * daemon at start-up.
 */
export function registerOperatorApi<E extends Env>(
  app: Hono<E>,
  handlers: OperatorHandlers,
  clock: Clock,
  admit: (row: string, c: Context) => void = () => undefined,
): void {
  const validators = requireValidators(OPERATOR_VALIDATORS_FILE) as Record<
    string,
    ValidateFunction
  >;
  const rows = new Set<string>(OPERATOR_API.map((r) => r.name));
  for (const name of Object.keys(handlers))
    if (!rows.has(name)) throw new Error(`operator handler ${name} has no row in catalog/operator`);
  for (const row of OPERATOR_API as readonly OperatorRoute[]) {
    const handler = (handlers as unknown as Record<string, OperatorHandler<OperatorRoute>>)[
      row.name
    ];
    if (!handler) throw new Error(`operator route ${row.name} has no handler`);
    const check = (part: 'params' | 'query' | 'body', value: unknown): void => {
      const validate = validators[`${row.name}.${part}`];
      if (!validate) return;
      const r = toInputCheck(validate)(value);
      if (!r.ok)
        throw new ExecError(row.invalid ?? 'validation_failed', schemaRefusal(part, r.details[0]), {
          details: r.details,
          ...(r.detailsOmitted !== undefined ? { detailsOmitted: r.detailsOmitted } : {}),
        });
    };
    app.on(row.method, row.path, async (c) => {
      // Who may call this row (a paired device, the unix socket) is settled before any input is read.
      admit(row.name, c);
      const input: Record<string, unknown> = {};
      if (row.params) {
        input.params = c.req.param();
        check('params', input.params);
      }
      if (row.query) {
        input.query = c.req.query();
        check('query', input.query);
      }
      if (row.body) {
        input.body = await readJsonBody(c, clock, row.bodyLimit);
        check('body', input.body);
      }
      const out = await handler(input as never, c);
      if (out instanceof Response) return out;
      return c.json({ ok: true, data: out }, (row.status ?? 200) as 200);
    });
  }
}

/** Names the first failing field, so a person reading only the message (the CLI prints no details) knows what to fix. */
function schemaRefusal(
  part: string,
  first: { readonly path: string; readonly message: string } | undefined,
): string {
  if (!first) return `the request ${part} does not match the schema`;
  return `the request ${part} does not match the schema at ${first.path || '/'}: ${first.message}`;
}
