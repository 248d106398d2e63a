import { defaultCatalog } from '../../catalog/catalog.js';
import type { ReceiptPolicy } from '../../catalog/inventory.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { buildReceipt, parseRetrieval, type Receipt } from '../../catalog/receipt.js';

/** The required input fields of a retrieval action: an Exec action (`task get`) or an MCP tool (`message_history_read`). */
function requiredInputsOf(retrieval: string): readonly string[] | undefined {
  const r = parseRetrieval(retrieval);
  const schema =
    'tool' in r
      ? MCP_TOOLS.find((t) => t.name === r.tool)?.inputSchema
      : defaultCatalog().get(r.domain, r.action)?.descriptor.input;
  if (!schema) return undefined;
  return (schema as { required?: readonly string[] }).required ?? [];
}

/**
 * The receipt of a mutation that may have committed: selectors from the
 * stored entity in `data[policy.entity]`, the caller's idempotency selectors,
 * and a retrieval call holding every field its action requires. An unknown
 * retrieval action gives a receipt without retrieval.
 */
export function mutationReceipt(policy: ReceiptPolicy, data: unknown, input: unknown): Receipt {
  const entity =
    data !== null && typeof data === 'object'
      ? (data as Record<string, unknown>)[policy.entity]
      : undefined;
  const fields =
    entity !== null && typeof entity === 'object' ? (entity as Record<string, unknown>) : {};
  const given =
    input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const required = requiredInputsOf(policy.retrieval);
  const receipt = buildReceipt(policy, fields, given, required ?? []);
  if (required === undefined) delete receipt.retrieval;
  return receipt;
}
