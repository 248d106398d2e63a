import type { Risk } from './descriptor.js';

/**
 * The closed operation matrix of the workflow domain: for each action, every
 * `op` it accepts and whether that op only reads or has a side effect. Each
 * workflow descriptor carries its row as `opRisk`, so the Exec route takes
 * a call's risk from the descriptor (callRisk) like any action's, and the
 * store records idempotency keys only for side-effect ops. An op missing
 * from the matrix counts as a side effect.
 */
export const WORKFLOW_OP_MATRIX = {
  plan: {
    list: 'read',
    show: 'read',
    version: 'read',
    validate: 'read',
    create: 'side_effect',
    update: 'side_effect',
    archive: 'side_effect',
    publish: 'side_effect',
  },
  trigger: {
    list: 'read',
    show: 'read',
    validate: 'read',
    create: 'side_effect',
    update: 'side_effect',
    enable: 'side_effect',
    disable: 'side_effect',
    archive: 'side_effect',
  },
  run: { list: 'read', show: 'read', logs: 'read', start: 'side_effect', cancel: 'side_effect' },
  step: {
    list: 'read',
    get: 'read',
    complete: 'side_effect',
    fail: 'side_effect',
    pause: 'side_effect',
    park: 'side_effect',
  },
} as const satisfies Record<string, Record<string, Risk>>;

export type WorkflowAction = keyof typeof WORKFLOW_OP_MATRIX;

export function workflowOps<A extends WorkflowAction>(
  action: A,
): (keyof (typeof WORKFLOW_OP_MATRIX)[A])[] {
  return Object.keys(WORKFLOW_OP_MATRIX[action]) as (keyof (typeof WORKFLOW_OP_MATRIX)[A])[];
}
