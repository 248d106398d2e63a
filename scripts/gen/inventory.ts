import type { Catalog } from '../../catalog/catalog.js';
import { INVENTORY_VERSION, type InventoryRow } from '../../catalog/inventory.js';

/** Where the inventory is published (readers, the tests); the daemon derives it from the descriptors. */
export const INVENTORY_FILE = 'catalog/agentteam-exec-action-inventory.json';

/** One-line JSON with a space inside braces and after each colon and comma: `{ "a": ["x", "y"] }`. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** A row on two or three lines: the action and its risk, its result policy, its receipt policy. */
function renderRow(row: InventoryRow): string {
  const lines = [
    `    { "domain": ${JSON.stringify(row.domain)}, "action": ${JSON.stringify(row.action)}, "risk": ${JSON.stringify(row.risk)}`,
  ];
  lines.push(`      "result": ${inline(row.result)}`);
  if (row.receipt) lines.push(`      "receipt": ${inline(row.receipt)}`);
  return `${lines.join(',\n')} }`;
}

/**
 * The action inventory JSON: one row per catalog action (risk, result policy,
 * receipt policy), rendered from the descriptors, one row to a few lines so
 * that a changed policy is a small diff.
 */
export function renderInventory(catalog: Catalog): string {
  const rows = [...catalog.entries.values()].map((e) => renderRow(e.inventory));
  return `{\n  "version": ${INVENTORY_VERSION},\n  "actions": [\n${rows.join(',\n')}\n  ]\n}\n`;
}
