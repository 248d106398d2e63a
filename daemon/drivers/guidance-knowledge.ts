import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { toRuntimeName, type RuntimeKind } from './names.js';

/**
 * The guidance sections that ship with the retrieval tools: each is rendered
 * only when its tool is in the inventory, so the prompt never describes a
 * tool the route does not serve.
 */
export function renderKnowledgeGuidance(
  runtime: RuntimeKind,
  inventory: readonly McpToolDescriptor[],
  memoryDir?: string,
): string[] {
  const has = (name: string) => inventory.some((t) => t.name === name);
  const n = (name: string) => `\`${toRuntimeName(runtime, name)}\``;
  const lines: string[] = [];
  if (has('memory_search')) {
    lines.push(
      '## memory-maintenance',
      '',
      `Your memory is ${memoryPlace(memoryDir)} (.md and .txt notes you keep; make the folder if it is missing); search it with ${n('memory_search')} before asking again.`,
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

/**
 * The absolute folder when the lease knows it: a runtime's environment has
 * no AGENTTEAM_HOME (the daemon's home is not the runtime's business), so a
 * path spelled with that variable led agents to write notes nowhere the index
 * looks. Without a lease (token analysis) the folder is described instead.
 */
function memoryPlace(memoryDir: string | undefined): string {
  if (!memoryDir) return "the folder `memory/<your agent id>/` in the AgentTeam daemon's home";
  return `\`${memoryDir.replace(/[\r\n`]/g, '')}/\``;
}
