import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { toRuntimeName, type RuntimeKind } from './names.js';

/**
 * The guidance sections that ship with the retrieval tools: each is rendered
 * only when its tool is in the inventory, so the prompt never describes a
 * tool the route does not serve.
 */
export function renderKnowledgeGuidance(runtime: RuntimeKind, inventory: readonly McpToolDescriptor[]): string[] {
  const has = (name: string) => inventory.some((t) => t.name === name);
  const n = (name: string) => `\`${toRuntimeName(runtime, name)}\``;
  const lines: string[] = [];
  if (has('memory_search')) {
    lines.push(
      '## memory-maintenance',
      '',
      `Your memory is \`$AGENTTEAM_HOME/memory/<your agent id>/\` (.md and .txt notes you keep); search it with ${n('memory_search')} before asking again.`,
      '- One topic per file under a `# Heading`, ISO dates; edit or delete notes that stop being true. Never store secrets (hidden files and symlinks are not indexed).',
      '- On index_unavailable, follow the hint (retry shortly, or grep the folder).',
      '',
    );
  }
  if (has('kb_search')) {
    lines.push(
      '## Team knowledge',
      '',
      `Search with short keyword queries in ${n('kb_search')}, read hits with ${n('kb_fetch')}, and name the docId of what you quote.`,
      '',
    );
  }
  return lines;
}
