import type {
  KbFetchInput,
  KbSearchInput,
  MemorySearchInput,
} from '../../catalog/mcp-knowledge-tools.js';
import type { ToolHandler } from '../tools/contracts.js';
import type { TurnLookup } from '../store/turn-lookup.js';
import type { KnowledgeBase } from './kb.js';
import type { MemoryIndexes } from './memory.js';
import { checkTurn } from './turn.js';
import { noteTransport } from '../audit/note.js';
import type { CallContext } from '../tools/registry.js';

export interface KnowledgeServices {
  readonly memory: MemoryIndexes;
  readonly kb: KnowledgeBase;
  readonly turns: TurnLookup;
}

/**
 * Handlers of the retrieval tools. memory_search reads only the calling
 * agent's folder (the agent id comes from the token, never an argument);
 * kb_search and kb_fetch recheck the bound turn at every call, before any
 * source is asked.
 */
export function knowledgeToolHandlers(s: KnowledgeServices): Record<string, ToolHandler> {
  // The turn checked, the call goes to the configured upstream (not the embedded folder): the audit row says so.
  const turn = async (ctx: CallContext) => {
    const checked = await checkTurn(s.turns, ctx.principal);
    if (s.kb.remote) noteTransport(ctx, 'kb_upstream');
    return checked;
  };
  return {
    memory_search: (args, ctx) => s.memory.search(ctx.principal.agentId, args as MemorySearchInput),
    kb_search: async (args, ctx) =>
      s.kb.search(ctx.principal, await turn(ctx), args as KbSearchInput, ctx.signal),
    kb_fetch: async (args, ctx) =>
      s.kb.fetch(ctx.principal, await turn(ctx), args as KbFetchInput, ctx.signal),
  };
}
