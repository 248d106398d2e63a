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
      'Your memory is the folder `$AGENTTEAM_HOME/memory/<your agent id>/`: Markdown (.md) and text (.txt) files you keep yourself.',
      `- Search it with ${n('memory_search')} before asking again for something you were told before. It returns locators (file, lines, snippet), never whole files; open the file at those lines to read more.`,
      '- Keep one topic per file, a `# Heading` on the first line, short sections under `##` headings, and dates in ISO form (2026-01-31) so searches find them.',
      '- Edit a note when a fact changes instead of appending a contradiction; delete notes that are no longer true. Changes are searchable within seconds.',
      '- Never store credentials, tokens or secrets in memory. Hidden files and symbolic links are not indexed.',
      `- If ${n('memory_search')} answers index_unavailable, follow its hint (retry shortly, or grep the folder).`,
      '',
    );
  }
  if (has('kb_search')) {
    lines.push(
      '## Team knowledge',
      '',
      `${n('kb_search')} and ${n('kb_fetch')} answer the request of the person whose message started your turn; they refuse when there is no such turn.`,
      `Search with short keyword queries, then read a hit with ${n('kb_fetch')} and its docId, following nextCursor while hasMore is true. Quote what you use and name its docId.`,
      '',
    );
  }
  return lines;
}
