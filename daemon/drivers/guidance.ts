import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { defaultCatalog } from '../../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../../catalog/help.js';
import { toRuntimeName, type RuntimeKind } from './names.js';
import { renderKnowledgeGuidance } from './guidance-knowledge.js';

/**
 * The tool-use guidance a runtime gets in its prompt. Its MCP tool list is
 * rendered from the same inventory tools/list serves, so the two cannot
 * differ; the Exec part is the catalog's mixed index (the same text as
 * `agentteam exec --help`).
 */
export function renderToolGuidance(runtime: RuntimeKind, inventory: readonly McpToolDescriptor[], agentteamPath?: string): string {
  const lines = [
    '# AgentTeam tools',
    '',
    runtime === 'codex-app-server' ? '## Messages (tools in the namespace "agentteam")' : '## Messages (MCP server "agentteam")',
    '',
    'Every message tool needs the exact target of the conversation, copied from the message you answer:',
    'channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>. Nothing is filled in for you.',
    'A failed call returns isError with an error envelope; read error.hint and retry with corrected input.',
    '',
  ];
  if (runtime === 'generic') {
    lines.push(
      'Credentials: the bearer token is the content of the file named by AGENTTEAM_EXEC_TOKEN_FILE. The file is replaced',
      'with a new token before the old one expires, so read it again for every request (MCP or Exec) and send',
      '`Authorization: Bearer <content>`; never keep a copy of the token.',
      '',
    );
  }
  for (const t of inventory) {
    const kind = t.annotations.readOnlyHint === true ? 'read-only' : 'changes data';
    lines.push(`- \`${toRuntimeName(runtime, t.name)}\` (${kind}): ${t.description}`);
  }
  lines.push(
    '',
    'A delegated child thread may only use the read-only tools; it returns its result to its leader instead of sending.',
    '',
    ...renderKnowledgeGuidance(runtime, inventory),
    '## Everything else: `agentteam exec`',
    '',
    'Tasks, projects, reviews, teams, agents, scheduled messages, approvals and workflows are actions of the `agentteam exec` command (run it with your shell tool);',
    'provider extensions installed for this runtime (e.g. `github`) are further domains, listed at the end of `agentteam exec --help`:',
    '',
    ...(agentteamPath
      ? [`\`agentteam\` is first on your PATH; where a shell does not find it, call it by its absolute path: \`${agentteamPath.replace(/[\r\n`]/g, '')}\`.`, '']
      : []),
    '```text',
    renderExecIndex(helpIndexOf(defaultCatalog())).trimEnd(),
    '```',
    '',
  );
  return lines.join('\n');
}

/** The short form sent as the MCP `initialize` instructions. */
export function renderServerInstructions(inventory: readonly McpToolDescriptor[]): string {
  return (
    `AgentTeam messages, memory and team knowledge. Tools: ${inventory.map((t) => t.name).join(', ')}. ` +
    'Always pass the exact target (channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>) of the conversation you answer; there is no default. ' +
    'Tasks, projects and reviews are not MCP tools: use the `agentteam exec` command.'
  );
}
