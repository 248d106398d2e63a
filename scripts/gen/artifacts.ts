import type { Catalog } from '../../catalog/catalog.js';
import type { ReceiptPolicy } from '../../catalog/inventory.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import {
  helpIndexOf,
  renderActionHelp,
  renderDomainHelp,
  renderExecIndex,
} from '../../catalog/help.js';
import { standaloneSchema } from '../../catalog/schemas.js';
import { readCommandSpecs } from '../../catalog/operator-reads.js';
import { writeCommandSpecs } from '../../catalog/operator-writes.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { openApiDocument } from './openapi.js';
import { renderLimits } from './limits.js';
import { validatorModules } from './validators.js';
import { operatorValidatorsModule, wireValidatorsModule } from './operator-validators.js';
import { OPERATOR_PATHS_FILE, renderOperatorPaths } from './operator-paths.js';
import { operatorOpenApiDocument } from './operator-openapi.js';
import { INVENTORY_FILE, renderInventory } from './inventory.js';

export interface Artifact {
  /** Relative to the repository root. */
  readonly path: string;
  readonly content: string;
  /** Committed files are checked for staleness by a test; the rest is build output under dist/. */
  readonly committed: boolean;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Specs and the action inventory, checked into the repository. Pure: the staleness test renders them in memory. */
export function committedArtifacts(catalog: Catalog): Artifact[] {
  return [
    { path: 'specs/openapi.json', content: json(openApiDocument(catalog)), committed: true },
    {
      path: 'specs/exec-index.txt',
      content: renderExecIndex(helpIndexOf(catalog)),
      committed: true,
    },
    { path: 'specs/limits.md', content: renderLimits(catalog), committed: true },
    { path: INVENTORY_FILE, content: renderInventory(catalog), committed: true },
    { path: OPERATOR_PATHS_FILE, content: renderOperatorPaths(), committed: true },
    {
      path: 'specs/operator-openapi.json',
      content: json(operatorOpenApiDocument()),
      committed: true,
    },
  ];
}

/**
 * Per mutation (`domain.action`): its receipt policy and the required inputs
 * of its retrieval action, so the CLI rebuilds receipts from the catalog
 * without loading it.
 */
export function receiptPolicies(
  catalog: Catalog,
): Record<string, ReceiptPolicy & { retrievalRequired: readonly string[] }> {
  const out: Record<string, ReceiptPolicy & { retrievalRequired: readonly string[] }> = {};
  for (const { descriptor: d, inventory } of catalog.entries.values()) {
    const policy = inventory.receipt;
    if (!policy) continue;
    const [domain = '', action = ''] = policy.retrieval.split(' ');
    const retrieval = catalog.get(domain, action);
    if (!retrieval)
      throw new Error(
        `${d.domain} ${d.action}: receipt retrieval "${policy.retrieval}" is not a catalog action`,
      );
    const required =
      (retrieval.descriptor.input as { required?: readonly string[] }).required ?? [];
    out[`${d.domain}.${d.action}`] = { ...policy, retrievalRequired: required };
  }
  return out;
}

/**
 * Build output the CLI and the daemon load at run time instead of the
 * catalog: the help pages, a schema-free help index (for name suggestions),
 * one standalone validator per action and the standalone schemas printed by
 * --input-schema/--output-schema/--error-schema.
 */
export function buildArtifacts(catalog: Catalog): Artifact[] {
  const out: Artifact[] = [
    {
      path: 'dist/generated/help-index.json',
      content: `${JSON.stringify(helpIndexOf(catalog))}\n`,
      committed: false,
    },
    {
      path: 'dist/generated/schemas/error-envelope.json',
      content: json(errorEnvelopeSchema),
      committed: false,
    },
    {
      path: 'dist/generated/receipt-policies.json',
      content: `${JSON.stringify(receiptPolicies(catalog))}\n`,
      committed: false,
    },
    // The operator's read and write commands (`agentteam task list`, `task create`, ...), built by cli/program.ts without loading the catalog.
    {
      path: 'dist/generated/operator-commands.json',
      content: `${JSON.stringify([...readCommandSpecs(catalog), ...writeCommandSpecs(catalog)])}\n`,
      committed: false,
    },
    // The built-in MCP tools' names, so `agentteam exec message send` can say where message_send really is.
    {
      path: 'dist/generated/mcp-tool-names.json',
      content: `${JSON.stringify(MCP_TOOLS.map((t) => t.name))}\n`,
      committed: false,
    },
  ];
  // Help pages pre-rendered: printing one is a file read, no module to load.
  const index = helpIndexOf(catalog);
  out.push({
    path: 'dist/generated/help/_index.txt',
    content: renderExecIndex(index),
    committed: false,
  });
  for (const d of index.domains) {
    out.push({
      path: `dist/generated/help/${d.domain}.txt`,
      content: renderDomainHelp(d),
      committed: false,
    });
    for (const a of d.actions) {
      out.push({
        path: `dist/generated/help/${d.domain}.${a.action}.txt`,
        content: renderActionHelp(d.domain, a),
        committed: false,
      });
    }
  }
  for (const { descriptor: d } of catalog.entries.values()) {
    for (const kind of ['input', 'output'] as const) {
      out.push({
        path: `dist/generated/schemas/${d.domain}.${d.action}.${kind}.json`,
        content: json(standaloneSchema(d, kind)),
        committed: false,
      });
    }
  }
  out.push({
    path: 'dist/generated/operator-validators.cjs',
    content: operatorValidatorsModule(),
    committed: false,
  });
  out.push({
    path: 'dist/generated/wire-validators.cjs',
    content: wireValidatorsModule(),
    committed: false,
  });
  for (const [file, code] of validatorModules(catalog)) {
    out.push({ path: `dist/generated/validators/${file}`, content: code, committed: false });
  }
  return out;
}
