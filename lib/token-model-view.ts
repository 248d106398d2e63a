/**
 * What each runtime sends its model from one MCP tool definition, read from
 * the runtimes' own source (specs/mcp.md, "What a runtime's model sees"):
 *
 * - claude: Claude Code hands the model a Claude API tool, which has a name,
 *   a description and an `input_schema`; title, annotations and the output
 *   schema have no place in it.
 * - codex, codex-app-server: Codex turns MCP and dynamic tools into Responses
 *   API function tools (`codex-rs/tools/src/mcp_tool.rs`,
 *   `responses_api.rs`): name, description, `strict: false` and
 *   `parameters`, the input schema parsed into its small JSON-Schema subset
 *   (`json_schema.rs`: type, description, enum, items, properties, required,
 *   additionalProperties, anyOf; `const` becomes a one-value enum). Bounds,
 *   patterns and defaults are dropped; the output schema is kept off the
 *   request (`#[serde(skip)]`).
 * - opencode: OpenCode wraps each MCP tool as an AI SDK tool with the
 *   description and the input schema (forced to a closed object); the
 *   provider adapter sends those as name/description/schema.
 * - generic: an unknown client; the common part of all of them: name,
 *   description, input schema.
 *
 * The text returned is that object as compact JSON, the closest stand-in for
 * what the model's tokenizer reads.
 */

import type { RuntimeKind } from '../catalog/runtimes.js';
import { project } from '../catalog/mcp-wire.js';

interface WireDefinition {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/** The keywords of Codex's JsonSchema (codex-rs/tools/src/json_schema.rs). */
const CODEX_KEYWORDS = new Set([
  'type',
  'description',
  'enum',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'anyOf',
]);

/** Codex's subset of a schema: its keywords only, `const` spelled as a one-value `enum`. */
const codexSubset = (schema: unknown) =>
  project(
    schema,
    (key) => key === 'const' || CODEX_KEYWORDS.has(key),
    (key, value) => (key === 'const' ? ['enum', [value]] : [key, value]),
  );

/** A one-line account of the rule, printed with the report. */
export const MODEL_VIEW_RULES: Record<RuntimeKind, string> = {
  claude: 'name, description, input_schema (a Claude API tool)',
  codex: "name, description, parameters in Codex's schema subset (a Responses API function tool)",
  'codex-app-server':
    "name, description, parameters in Codex's schema subset (a Responses API function tool)",
  opencode: 'name, description, input schema as a closed object (an AI SDK tool)',
  generic: 'name, description, input schema',
};

/** The model-visible JSON text of one tools/list entry for `runtime`. */
export function modelView(runtime: RuntimeKind, definitionJson: string): string {
  const d = JSON.parse(definitionJson) as WireDefinition;
  const description = d.description ?? '';
  const schema = d.inputSchema ?? { type: 'object', properties: {} };
  switch (runtime) {
    case 'claude':
      return JSON.stringify({ name: d.name, description, input_schema: schema });
    case 'codex':
    case 'codex-app-server':
      return JSON.stringify({
        type: 'function',
        name: d.name,
        description,
        strict: false,
        parameters: codexSubset(schema),
      });
    case 'opencode':
      return JSON.stringify({
        name: d.name,
        description,
        input_schema: {
          ...schema,
          type: 'object',
          properties: schema.properties ?? {},
          additionalProperties: false,
        },
      });
    case 'generic':
      return JSON.stringify({ name: d.name, description, inputSchema: schema });
  }
}
