import type { JSONSchema, FromSchema } from 'json-schema-to-ts';
import type { ResultPolicy } from './inventory.js';

/**
 * The shape of one MCP tool descriptor, apart from the inventories that use
 * it (message tools, knowledge tools), so neither inventory file imports the other.
 */

/** MCP tool annotations (behaviour hints for the client; the child gate trusts only readOnlyHint). */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

export interface McpToolDescriptor<
  I extends JSONSchema = JSONSchema,
  O extends JSONSchema = JSONSchema,
> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly annotations: ToolAnnotations;
  /** What to do instead when a result exceeds the result budget (not sent in tools/list); a read's next call is computed (catalog/inventory.ts). */
  readonly overBudget: ResultPolicy;
}

export type ToolInputOf<D extends McpToolDescriptor> = FromSchema<D['inputSchema']>;
export type ToolOutputOf<D extends McpToolDescriptor> = FromSchema<D['outputSchema']>;

export function defineTool<const D extends McpToolDescriptor>(d: D): D {
  return d;
}
