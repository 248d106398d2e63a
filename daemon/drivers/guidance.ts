import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { defaultCatalog } from '../../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../../catalog/help.js';
import { toRuntimeName, type RuntimeKind } from './names.js';
import { renderKnowledgeGuidance } from './guidance-knowledge.js';

/**
 * The tool-use guidance a runtime gets in its prompt. It names the MCP tools
 * from the same inventory tools/list serves, so the two cannot differ, but it
 * does not repeat their descriptions: the runtime already puts each tool's
 * description and schema in front of the model on every turn. The Exec part
 * is the catalog's mixed index (the same text as `agentteam exec --help`),
 * which points to the per-domain and per-action help instead of listing it.
 */
export function renderToolGuidance(
  runtime: RuntimeKind,
  inventory: readonly McpToolDescriptor[],
  agentteamPath?: string,
  memoryDir?: string,
): string {
  const lines = [
    '# AgentTeam tools',
    '',
    runtime === 'codex-app-server'
      ? '## Messages (tools in the namespace "agentteam")'
      : '## Messages (MCP server "agentteam")',
    '',
    'Message tools need the exact target of the conversation you answer; nothing is filled in for you.',
    'A failed call returns isError with an error envelope; follow error.hint.',
    'These are MCP tools, not `agentteam exec` actions; the MCP endpoint is in AGENTTEAM_MCP_URL.',
    '',
  ];
  if (runtime === 'generic') {
    lines.push(
      'Credentials: the bearer token is the content of the file named by AGENTTEAM_EXEC_TOKEN_FILE. The file is replaced',
      'before the token expires, so read it again for every request (MCP or Exec), send `Authorization: Bearer <content>`',
      'and never keep a copy.',
      '',
    );
  }
  for (const t of inventory) {
    lines.push(
      `- \`${toRuntimeName(runtime, t.name)}\` (${t.annotations.readOnlyHint === true ? 'read-only' : 'changes data'})`,
    );
  }
  lines.push(
    '',
    'A delegated child thread may only use the read-only tools; it returns its result to its leader instead of sending.',
    '',
    ...renderKnowledgeGuidance(runtime, inventory, memoryDir),
    '## Everything else: `agentteam exec`',
    '',
    'Tasks, projects, reviews, approvals, workflows, installed extensions and the rest are `agentteam exec` actions; run it with your shell tool:',
    '',
    ...(agentteamPath
      ? [
          `\`agentteam\` is first on your PATH; where a shell does not find it, call it by its absolute path: \`${agentteamPath.replace(/[\r\n`]/g, '')}\`.`,
          '',
        ]
      : []),
    '```text',
    renderExecIndex(helpIndexOf(defaultCatalog())).trimEnd(),
    '```',
    '',
  );
  return lines.join('\n');
}

/**
 * The short form sent as the MCP `initialize` instructions. It does not list
 * the tools: tools/list names them, and the runtime shows both.
 */
export const SERVER_INSTRUCTIONS =
  'AgentTeam messages, memory and team knowledge. ' +
  'Pass the exact target of the conversation you answer; there is no default. ' +
  'Tasks, projects and reviews are `agentteam exec` actions, not MCP tools.';
