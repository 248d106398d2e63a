import type { Risk, SchemaObject } from './descriptor.js';

/**
 * One op of an action that multiplexes operations on an `op` field: whether
 * it reads or has a side effect, and which fields it takes besides `op`.
 * A side-effect op also takes the idempotency selectors; a read takes none,
 * as there is nothing to replay. The field schemas themselves are the
 * action's `properties`; these rules only say which of them an op takes.
 */
interface OpRule {
  readonly risk: Risk;
  readonly required?: readonly string[];
  readonly optional?: readonly string[];
  /** A list-like op: also takes `limit` and `cursor`. */
  readonly paged?: boolean;
  /** Exactly one of these must be given (each is also in `optional`). */
  readonly oneOf?: readonly string[];
  /** At least one of these must be given (each is also in `optional`). */
  readonly anyOf?: readonly string[];
}

const SELECTORS = ['idempotencyKey', 'requestId'];
const PAGED = ['limit', 'cursor'];

const read = (more: Omit<OpRule, 'risk'> = {}): OpRule => ({ risk: 'read', ...more });
const effect = (more: Omit<OpRule, 'risk'> = {}): OpRule => ({ risk: 'side_effect', ...more });
const byId = { required: ['id'] } as const;

/**
 * The closed operation table of the workflow domain: for each action, every
 * `op` it accepts, its risk and its fields. Each workflow descriptor takes
 * its risks (`opRisk`, so the Exec route takes a call's risk from the
 * descriptor, callRisk, like any action's) and its input rules (`allOf`,
 * opInputRules) from its row, so the generated validator refuses a field an
 * op does not take, or a missing one, before any handler runs.
 */
export const WORKFLOW_OPS = {
  plan: {
    list: read({ optional: ['status'], paged: true }),
    show: read(byId),
    version: read({ required: ['id', 'version'] }),
    validate: read({ required: ['steps'], optional: ['name', 'description'] }),
    create: effect({ required: ['name', 'steps'], optional: ['description'] }),
    update: effect({
      required: ['id'],
      optional: ['name', 'description', 'steps'],
      anyOf: ['name', 'description', 'steps'],
    }),
    archive: effect(byId),
    publish: effect({ required: ['id'], optional: ['version'] }),
  },
  trigger: {
    list: read({ optional: ['planId'], paged: true }),
    show: read(byId),
    validate: read({ required: ['kind'], optional: ['cron', 'timeZone', 'target', 'planId'] }),
    create: effect({ required: ['planId', 'kind'], optional: ['cron', 'timeZone', 'target'] }),
    update: effect({ required: ['id'], optional: ['cron', 'timeZone', 'target'] }),
    enable: effect(byId),
    disable: effect(byId),
    archive: effect(byId),
  },
  run: {
    list: read({ optional: ['planId', 'status'], paged: true }),
    show: read(byId),
    logs: read({ required: ['id'], paged: true }),
    start: effect({ optional: ['planId', 'triggerId'], oneOf: ['planId', 'triggerId'] }),
    cancel: effect(byId),
  },
  step: {
    list: read({ required: ['runId'], paged: true }),
    get: read(byId),
    complete: effect({ required: ['id'], optional: ['note'] }),
    fail: effect({ required: ['id'], optional: ['note'] }),
    pause: effect({ required: ['id'], optional: ['note'] }),
    park: effect({ required: ['id'], optional: ['note'] }),
  },
} as const satisfies Record<string, Record<string, OpRule>>;

export type WorkflowAction = keyof typeof WORKFLOW_OPS;

type OpsOf<A extends WorkflowAction> = keyof (typeof WORKFLOW_OPS)[A];

/** For each workflow action, each op's risk (a descriptor's `opRisk`). */
export const WORKFLOW_OP_MATRIX = Object.fromEntries(
  Object.entries(WORKFLOW_OPS).map(([action, ops]) => [
    action,
    Object.fromEntries(Object.entries(ops).map(([op, rule]) => [op, (rule as OpRule).risk])),
  ]),
) as { readonly [A in WorkflowAction]: { readonly [O in OpsOf<A>]: Risk } };

export function workflowOps<A extends WorkflowAction>(action: A): OpsOf<A>[] {
  return Object.keys(WORKFLOW_OPS[action]) as OpsOf<A>[];
}

/** The fields one op takes, `op` included, in the order the rule names them. */
function opFields(rule: OpRule): string[] {
  return [
    'op',
    ...(rule.required ?? []),
    ...(rule.optional ?? []),
    ...(rule.paged ? PAGED : []),
    ...(rule.risk === 'side_effect' ? SELECTORS : []),
  ];
}

// Each alternative names its field under `properties` too, as ajv's strict mode asks.
const requiredOf = (fields: readonly string[]) =>
  fields.map((f) => ({ required: [f], properties: { [f]: true } }));

/**
 * The input rules of an action with ops, for its schema's `allOf`: one
 * `if {op} then {...}` per op, so only the rule of the op given applies and
 * a refusal names the field (`/steps` for a field of another op, `/id` for a
 * missing one). The action's own schema still lists every field with its
 * bounds; a rule closes the object to its op's fields. Typed loosely on
 * purpose: the handler's input type stays the action's union of fields.
 */
export function opInputRules(ops: Readonly<Record<string, OpRule>>): readonly SchemaObject[] {
  return Object.entries(ops).map(([op, rule]) => ({
    if: { required: ['op'], properties: { op: { const: op } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword; the object is a schema, never awaited.
    then: {
      ...(rule.required?.length ? { required: [...rule.required] } : {}),
      properties: Object.fromEntries(opFields(rule).map((f) => [f, true])),
      additionalProperties: false,
      ...(rule.oneOf ? { oneOf: requiredOf(rule.oneOf) } : {}),
      ...(rule.anyOf ? { anyOf: requiredOf(rule.anyOf) } : {}),
    },
  }));
}
