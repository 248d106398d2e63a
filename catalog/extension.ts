import type { ActionDescriptor, Risk, SchemaObject } from './descriptor.js';
import type { InventoryRow } from './inventory.js';

/**
 * An extension definition (`agentteam extension install FILE`): a provider's
 * actions as descriptor-only catalog entries, called by forwarding to the
 * provider's upstream. Pure: parsing and checks here, storage and
 * forwarding in daemon/extensions/.
 */
export interface ExtensionDefinition {
  readonly name: string;
  readonly description: string;
  readonly upstream: string;
  readonly actions: readonly ActionDescriptor[];
}

export const EXTENSION_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const ACTION_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;
const MAX_EXTENSION_BYTES = 256 * 1024;
const MAX_EXTENSION_ACTIONS = 64;

export class ExtensionDefinitionError extends Error {
  override name = 'ExtensionDefinitionError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function str(o: Obj, key: string, path: string, max: number, required = true): string | undefined {
  const v = o[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max)
    throw new ExtensionDefinitionError(
      `${path}/${key}`,
      `${key} must be a non-empty string of at most ${max} characters`,
    );
  return v;
}

function objectSchema(o: Obj, key: string, path: string): SchemaObject {
  const v = o[key];
  if (!isObj(v) || v.type !== 'object')
    throw new ExtensionDefinitionError(
      `${path}/${key}`,
      `${key} must be a JSON Schema with "type": "object"`,
    );
  return v;
}

/**
 * Parses and checks a definition's text. `reserved` are the built-in domains
 * an extension may not shadow. Schemas are checked for shape here; the
 * daemon also compiles them before installing.
 */
export function parseExtension(text: string, reserved: readonly string[]): ExtensionDefinition {
  if (Buffer.byteLength(text, 'utf8') > MAX_EXTENSION_BYTES)
    throw new ExtensionDefinitionError(
      '',
      `the definition is larger than ${MAX_EXTENSION_BYTES / 1024} KiB`,
    );
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ExtensionDefinitionError('', 'the definition is not valid JSON');
  }
  if (!isObj(doc)) throw new ExtensionDefinitionError('', 'the definition must be a JSON object');
  for (const k of Object.keys(doc))
    if (!['name', 'description', 'upstream', 'actions'].includes(k))
      throw new ExtensionDefinitionError(`/${k}`, `unknown field ${k}`);
  const name = str(doc, 'name', '', 32)!;
  if (!EXTENSION_NAME_PATTERN.test(name))
    throw new ExtensionDefinitionError(
      '/name',
      'name must be lowercase letters, digits and dashes, starting with a letter',
    );
  if (reserved.includes(name))
    throw new ExtensionDefinitionError('/name', `name "${name}" is a built-in domain`);
  const upstream = str(doc, 'upstream', '', 2000)!;
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    throw new ExtensionDefinitionError('/upstream', 'upstream must be an absolute http(s) URL');
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  ) {
    throw new ExtensionDefinitionError(
      '/upstream',
      'upstream must be an http(s) URL without credentials, query or fragment',
    );
  }
  const list = doc.actions;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_EXTENSION_ACTIONS) {
    throw new ExtensionDefinitionError(
      '/actions',
      `actions must be a list of 1 to ${MAX_EXTENSION_ACTIONS} actions`,
    );
  }
  const seen = new Set<string>();
  const actions = list.map((a, i): ActionDescriptor => {
    const path = `/actions/${i}`;
    if (!isObj(a)) throw new ExtensionDefinitionError(path, 'an action must be an object');
    for (const k of Object.keys(a)) {
      if (!['action', 'summary', 'help', 'example', 'risk', 'input', 'output'].includes(k))
        throw new ExtensionDefinitionError(`${path}/${k}`, `unknown field ${k}`);
    }
    const action = str(a, 'action', path, 64)!;
    if (!ACTION_PATTERN.test(action))
      throw new ExtensionDefinitionError(
        `${path}/action`,
        'action must be lowercase letters, digits and dashes',
      );
    if (seen.has(action))
      throw new ExtensionDefinitionError(`${path}/action`, `action "${action}" appears twice`);
    seen.add(action);
    const summary = str(a, 'summary', path, 200)!;
    const risk = a.risk;
    if (risk !== 'read' && risk !== 'side_effect')
      throw new ExtensionDefinitionError(`${path}/risk`, 'risk must be read or side_effect');
    return {
      domain: name,
      action,
      summary,
      help: str(a, 'help', path, 2000, false) ?? summary,
      example: a.example ?? {},
      risk: risk as Risk,
      input: objectSchema(a, 'input', path),
      output: objectSchema(a, 'output', path),
    };
  });
  return {
    name,
    description: str(doc, 'description', '', 80, false) ?? `Extension actions of ${name}.`,
    upstream: upstream.replace(/\/+$/, ''),
    actions,
  };
}

/** The inventory row an extension action gets: generic continuation advice, no receipt selectors beyond an id. */
export function extensionInventoryRow(d: ActionDescriptor): InventoryRow {
  const row: InventoryRow = {
    domain: d.domain,
    action: d.action,
    risk: d.risk,
    result: {
      hint: `The ${d.domain} ${d.action} result is larger than the result budget; ask the provider for less (a narrower input).`,
      next: { action: `${d.domain} ${d.action}`, input: {} },
    },
  };
  return d.risk === 'side_effect'
    ? {
        ...row,
        receipt: { entity: d.domain, selectors: ['id'], retrieval: `${d.domain} ${d.action}` },
      }
    : row;
}
