import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { WHOLE_LIST_KEYWORD } from '../catalog/worst-case.js';
import { jsonBytesKeyword } from './json-bytes-keyword.js';
import { capProcess } from './validator-cap.js';

/**
 * The one place an ajv instance is made. Every schema the project validates
 * against (the build's standalone validators, Exec, MCP tools, the operator
 * routes, declared tools, the knowledge service's answers) is compiled by an
 * instance from here, so they share one dialect and one vocabulary:
 *
 * - JSON Schema 2020-12 (Ajv2020): the catalog's schemas are written in it,
 *   and MCP makes it the default dialect of a tool's inputSchema and
 *   outputSchema when no `$schema` is given.
 * - allErrors, with the work bounded: after the first few error objects a
 *   validator only counts (lib/validator-cap.ts), so a hostile input cannot
 *   make it build one object per problem.
 * - the catalog's keywords: `x-maxJsonBytes` (a limit in UTF-8 bytes) and the
 *   `x-wholeList` annotation.
 * - strict: a schema the project wrote with an unknown keyword or a loose
 *   type is an error when it is compiled (at build time for the catalog).
 *
 * Loads ajv: the CLI's exec path must not import this module (it loads the
 * build's generated validators through lib/input-validators.ts instead).
 */
interface ValidatorOptions {
  /** Keep each validator's source for ajv's standalone code (the build's generated validators). */
  readonly standalone?: boolean;
  /** Fill a missing property from its schema's `default` (a declared tool's `needs`). */
  readonly useDefaults?: boolean;
  /**
   * The schemas were written outside the project (a declared tool's `needs`)
   * and already passed the tool schema subset (catalog/schema-subset.ts).
   * They are compiled without ajv's strict checks, which would refuse
   * schemas the subset accepts (a `required` name not under `properties`, a
   * bound without its `type`), and may name draft-07 in `$schema`: within
   * the subset (no tuples, no `$ref`) draft-07 and 2020-12 mean the same.
   */
  readonly foreign?: boolean;
}

type SchemaCompiler = Ajv2020;

const requireJson = createRequire(import.meta.url);

export function createValidator(opts: ValidatorOptions = {}): SchemaCompiler {
  const ajv = new Ajv2020({
    strict: opts.foreign !== true,
    allErrors: true,
    useDefaults: opts.useDefaults === true,
    code:
      opts.standalone === true ? { source: true, process: capProcess } : { process: capProcess },
  });
  if (opts.foreign === true)
    ajv.addMetaSchema(requireJson('ajv/dist/refs/json-schema-draft-07.json') as object);
  return ajv
    .addKeyword(jsonBytesKeyword)
    .addKeyword({ keyword: WHOLE_LIST_KEYWORD, schemaType: 'boolean' });
}

let shared: SchemaCompiler | undefined;

/**
 * The default instance, made on first use and shared by every compiler of
 * the project's own schemas in the daemon (Exec actions, MCP tools, the
 * operator routes, the knowledge service's answers). An instance compiles
 * the JSON Schema meta-schema at its first `compile`, 30–80 ms here, so one
 * instance instead of four takes that off the daemon's start. The schemas it
 * compiles carry no `$id`, so they cannot collide in its cache. Foreign,
 * defaulting and standalone compilers are made with createValidator.
 */
export function sharedValidator(): SchemaCompiler {
  shared ??= createValidator();
  return shared;
}
