import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export type Risk = 'read' | 'side_effect';

/** A JSON Schema object as stored in the catalog (draft 2020-12). */
export type SchemaObject = Readonly<Record<string, unknown>>;

/**
 * One Exec action. Data only: no handler, no I/O. The input and output types
 * of the handler registered for it are derived from `input` and `output`.
 */
export interface ActionDescriptor<
  I extends JSONSchema = JSONSchema,
  O extends JSONSchema = JSONSchema,
> {
  readonly domain: string;
  readonly action: string;
  readonly summary: string;
  readonly help: string;
  readonly example: unknown;
  readonly risk: Risk;
  /**
   * For an action that multiplexes operations on an `op` field: each op's
   * own risk. The call's risk (result boundary, delegated-child gate,
   * idempotency) is then its op's; `risk` states the worst case.
   */
  readonly opRisk?: Readonly<Record<string, Risk>>;
  readonly input: I;
  readonly output: O;
}

export type InputOf<D extends ActionDescriptor> = FromSchema<D['input']>;
export type OutputOf<D extends ActionDescriptor> = FromSchema<D['output']>;

/**
 * Declares an action. The example is checked against the input schema by the
 * catalog tests (ajv), not here: computing FromSchema for every literal at the
 * declaration site makes the compiler give up on the larger schemas.
 */
export function defineAction<const D extends ActionDescriptor>(d: D): D {
  return d;
}

export function actionKey(d: { domain: string; action: string }): string {
  return `${d.domain}/${d.action}`;
}

/** The risk of one call: the descriptor's, or its op's where the action has ops (an unknown op: side effect). */
export function callRisk(d: Pick<ActionDescriptor, 'risk' | 'opRisk'>, input: unknown): Risk {
  if (d.opRisk === undefined) return d.risk;
  const op =
    input !== null && typeof input === 'object' ? (input as { op?: unknown }).op : undefined;
  return typeof op === 'string' && Object.hasOwn(d.opRisk, op) ? d.opRisk[op]! : 'side_effect';
}
