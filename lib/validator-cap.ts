/**
 * Bounds the work of an ajv `allErrors` validator on a hostile input. Such a
 * validator builds one error object per problem, so a 1 MiB body of unknown
 * fields costs ~150 000 objects, most of which the error envelope would
 * drop. This rewrites ajv's generated code (a string; used at build time for
 * the standalone validators and through ajv's `code.process` option at run
 * time) so that after MATERIALIZED_ERRORS error objects it only counts:
 * `validate.errors` holds the first ones and `validate.errorCount` the exact
 * total, and the verdict (the counter reaching zero or not) is unchanged.
 *
 * The rewrite is applied only where it is provably the same verdict: every
 * error site must be ajv's own `const errN = {...}; push; errors++` shape and
 * the counter must never be recomputed from the array (`errors =
 * vErrors.length`, how ajv merges errors of a referenced schema). Otherwise
 * the code is returned unchanged and `applied` is false.
 */
export const MATERIALIZED_ERRORS = 64;

const CREATE = /const (err\d+) = \{/g;
const PUSH =
  /if\(vErrors === null\)\{vErrors = \[(err\d+)\];\}else \{vErrors\.push\(\1\);\}errors\+\+;/g;
const FINISH = /(validate\d+)\.errors = vErrors;return errors === 0;/g;

export function capValidatorErrors(
  code: string,
  cap = MATERIALIZED_ERRORS,
): { code: string; applied: boolean } {
  const increments = code.match(/errors\+\+/g)?.length ?? 0;
  const pushes = code.match(PUSH)?.length ?? 0;
  const creates = code.match(CREATE)?.length ?? 0;
  const finishes = code.match(FINISH)?.length ?? 0;
  const unsafe = /errors = vErrors\.length|vErrors\[/.test(code);
  if (unsafe || increments === 0 || increments !== pushes || creates !== pushes || finishes === 0)
    return { code, applied: false };
  const out = code
    .replace(CREATE, (_m, name: string) => `const ${name} = errors >= ${cap} ? null : {`)
    .replace(
      PUSH,
      (_m, name: string) =>
        `if(${name} !== null){if(vErrors === null){vErrors = [${name}];}else {vErrors.push(${name});}}errors++;`,
    )
    .replace(
      FINISH,
      (_m, fn: string) => `${fn}.errors = vErrors;${fn}.errorCount = errors;return errors === 0;`,
    );
  return { code: out, applied: true };
}

/** For ajv's `code.process` option: the rewrite where it applies, the code unchanged elsewhere. */
export function capProcess(code: string): string {
  return capValidatorErrors(code).code;
}
