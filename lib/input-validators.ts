import { existsSync } from 'node:fs';
import type { ErrorDetail } from '../catalog/envelope.js';
import { MAX_DETAILS } from '../catalog/error-limits.js';
import { NAME_PATTERN, validatorFile } from './generated.js';

/** The part of an ajv error this module reads (ajv's own type would import ajv). */
export interface AjvErrorLike {
  readonly instancePath: string;
  /** Where in the schema the failing keyword sits (`#/allOf/0/then/additionalProperties`). */
  readonly schemaPath?: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/**
 * A compiled ajv validate function, standalone or not. `errorCount` is set by
 * validators rewritten by lib/validator-cap.ts: the exact number of problems,
 * of which only the first few are in `errors` (an entry may be a hole).
 */
export type ValidateFunction = ((data: unknown) => boolean) & {
  errors?: readonly (AjvErrorLike | undefined)[] | null;
  errorCount?: number;
};

export type InputCheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly details: ErrorDetail[]; readonly detailsOmitted?: number };

/** Validates one input; never throws, never changes the input. */
export type InputCheck = (input: unknown) => InputCheckResult;

function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Under an `if`/`then`: only the catalog's op rules (catalog/workflow-ops.ts) branch so; the tool subset has no `if`. */
const OP_RULE = /\/then\//;

/**
 * Turns ajv errors into envelope details whose `path` is a JSON pointer to the
 * bad field itself: a missing or unknown property is reported at its own path,
 * not at the object that holds it; a field the op given does not take says
 * so, and the `if` error that only sums up the branch's errors is dropped. Only the first MAX_DETAILS distinct
 * problems are turned into details; the remaining errors are only counted, so
 * a body with 100 000 unknown fields costs no 100 000 strings.
 */
export function detailsOf(
  errors: readonly (AjvErrorLike | undefined)[],
  total = errors.length,
): { details: ErrorDetail[]; detailsOmitted?: number } {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  let i = 0;
  for (; i < errors.length && out.length < MAX_DETAILS; i++) {
    const e = errors[i];
    if (e === undefined || e.keyword === 'if') continue;
    let path = e.instancePath;
    let message = e.message ?? `fails ${e.keyword}`;
    if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') {
      path = `${path}/${pointerToken(e.params.missingProperty)}`;
      message = 'is required';
    } else if (
      e.keyword === 'additionalProperties' &&
      typeof e.params.additionalProperty === 'string'
    ) {
      path = `${path}/${pointerToken(e.params.additionalProperty)}`;
      message = OP_RULE.test(e.schemaPath ?? '')
        ? 'is not taken by this op'
        : 'is not a known field';
    } else if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) {
      message = enumMessage(e.params.allowedValues);
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  const rest = Math.max(total, errors.length) - i;
  return rest > 0 ? { details: out, detailsOmitted: rest } : { details: out };
}

/** At most this many allowed values are named in an enum error; the rest are counted. */
export const ENUM_VALUES_SHOWN = 20;

/** `must be one of "a", "b" (and 3 more)`: the allowed values, bounded (the detail's byte limit cuts the rest). */
function enumMessage(values: readonly unknown[]): string {
  const shown = values
    .slice(0, ENUM_VALUES_SHOWN)
    .map((v) => JSON.stringify(v))
    .join(', ');
  const rest = values.length - ENUM_VALUES_SHOWN;
  return `must be one of ${shown}${rest > 0 ? ` (and ${rest} more)` : ''}`;
}

export function toInputCheck(validate: ValidateFunction): InputCheck {
  return (input) => {
    if (validate(input)) return { ok: true };
    const errors = validate.errors ?? [];
    return { ok: false, ...detailsOf(errors, validate.errorCount ?? errors.length) };
  };
}

/**
 * In the CLI's CommonJS bundle, its own require. Only compiled ESM (the
 * daemon, the tests) creates one: loading node:module also starts the ESM
 * loader's modules, about a millisecond of every CLI call.
 */
async function requireFunction(): Promise<NodeJS.Require> {
  if (typeof require === 'function') return require;
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url);
}

/**
 * Loads the input validator the build generated for one action
 * (dist/generated/validators/<domain>.<action>.cjs, ajv standalone code, no
 * schema compilation at run time). It is CommonJS and loaded with require():
 * in the CLI's CommonJS bundle an import() would start node's ESM loader,
 * several ms of every call. Resolves to undefined for an action the
 * build did not generate. Shared by the CLI (local validation) and the daemon
 * (server-side validation), so both apply exactly the same schema.
 */
export async function loadInputValidator(
  domain: string,
  action: string,
): Promise<InputCheck | undefined> {
  if (!NAME_PATTERN.test(domain) || !NAME_PATTERN.test(action)) return undefined;
  const file = validatorFile(domain, action);
  // Checked first so that a broken generated module still fails loudly instead of reading as "unknown action".
  if (!existsSync(file)) return undefined;
  const validate = (await requireFunction())(file) as ValidateFunction;
  return toInputCheck(validate);
}
