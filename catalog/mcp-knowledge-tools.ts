import { LIMITS, lookupText, textLimit } from './limits.js';
import { defineTool, type ToolInputOf, type ToolOutputOf } from './mcp-tool-descriptor.js';

/**
 * The retrieval tools of the `agentteam` MCP server: memory search over the
 * agent's own memory folder, and knowledge search/fetch bound to the human
 * turn that asked. Data only; handlers live in daemon/knowledge/.
 */

/** Limits shared by the handlers and the schemas (bytes are UTF-8 bytes). */
export const RETRIEVAL_LIMITS = {
  /** Longest query accepted, in characters (the schema's maxLength). */
  queryChars: 512,
  defaultHits: 10,
  maxHits: 50,
  /** Largest snippet a hit carries, in UTF-8 bytes. */
  snippetBytes: 320,
  /** Largest chunk kb_fetch returns, in UTF-8 bytes. */
  fetchBytes: 8192,
} as const;

const cursorSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  'x-maxJsonBytes': 512,
} as const;
/** Cursors, queries and doc ids are only decoded, searched for or looked up, never stored: maxLength is their whole rule. */
const cursorInput = { type: 'string', minLength: 1, ...lookupText(512) } as const;
const docIdInput = { type: 'string', minLength: 1, ...lookupText(LIMITS.docPath.chars) } as const;
const docPathSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.docPath) } as const;
const titleSchema = { type: 'string', ...textLimit(LIMITS.docTitle) } as const;
/** Snippets are cut by their JSON spelling, so the byte figure is also the character bound. */
const snippetSchema = {
  type: 'string',
  maxLength: RETRIEVAL_LIMITS.snippetBytes,
  'x-maxJsonBytes': RETRIEVAL_LIMITS.snippetBytes,
} as const;

const queryInput = {
  query: {
    type: 'string',
    minLength: 1,
    ...lookupText(RETRIEVAL_LIMITS.queryChars),
    description: 'All words must occur; "quote" a phrase; a trailing * matches a prefix.',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: RETRIEVAL_LIMITS.maxHits,
    default: RETRIEVAL_LIMITS.defaultHits,
    description: 'Hits per page (at most 50).',
  },
  cursor: cursorInput,
} as const;

const pageOut = {
  hasMore: { type: 'boolean' },
  nextCursor: { ...cursorSchema, description: 'Present only when hasMore is true.' },
} as const;

/** A search result page: hits of the given shape, best first, and the paging fields. */
function hitsPage<const T>(item: T) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['hits', 'hasMore'],
    properties: { hits: { type: 'array', items: item }, ...pageOut },
  } as const;
}

export const memorySearch = defineTool({
  name: 'memory_search',
  title: 'Search your memory',
  description:
    'Full-text search of your memory folder. Returns locators (path, lines, snippet), best first; open the file there to read more.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: queryInput,
  },
  outputSchema: hitsPage({
    type: 'object',
    additionalProperties: false,
    required: ['path', 'lineStart', 'lineEnd', 'line', 'snippet', 'score'],
    properties: {
      path: { ...docPathSchema, description: 'Relative to your memory folder, "/"-separated.' },
      lineStart: { type: 'integer', minimum: 1 },
      lineEnd: { type: 'integer', minimum: 1 },
      line: {
        type: 'integer',
        minimum: 1,
        description: 'The first line of the passage that matches.',
      },
      snippet: {
        ...snippetSchema,
        description: 'At most 320 bytes (as JSON) around the match; matched words in [brackets].',
      },
      score: { type: 'number', description: 'Relevance (BM25, higher is better).' },
    },
  }),
  annotations: { title: 'Search your memory', readOnlyHint: true, openWorldHint: false },
  overBudget: {
    hint: 'The page is too large; ask for fewer hits with a smaller limit and continue with nextCursor.',
    next: { action: 'memory_search', input: { query: '<query>', limit: 5 } },
  },
});

export const kbSearch = defineTool({
  name: 'kb_search',
  title: 'Search team knowledge',
  description:
    'Searches team knowledge for the request of the person whose message started this turn (refused in other turns). Read a hit with kb_fetch.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: queryInput,
  },
  outputSchema: hitsPage({
    type: 'object',
    additionalProperties: false,
    required: ['docId', 'title', 'snippet', 'score'],
    properties: {
      docId: docPathSchema,
      title: titleSchema,
      snippet: snippetSchema,
      score: { type: 'number' },
      lineStart: { type: 'integer', minimum: 1 },
      lineEnd: { type: 'integer', minimum: 1 },
    },
  }),
  annotations: { title: 'Search team knowledge', readOnlyHint: true, openWorldHint: true },
  overBudget: {
    hint: 'The page is too large; ask for fewer hits with a smaller limit and continue with nextCursor.',
    next: { action: 'kb_search', input: { query: '<query>', limit: 5 } },
  },
});

export const kbFetch = defineTool({
  name: 'kb_fetch',
  title: 'Read a knowledge document',
  description:
    'Reads a kb_search hit by docId, 8 KiB a call; while hasMore, pass nextCursor as cursor. Same turn rule as kb_search.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['docId'],
    properties: {
      docId: docIdInput,
      cursor: cursorInput,
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['docId', 'title', 'text', 'hasMore'],
    properties: {
      docId: docPathSchema,
      title: titleSchema,
      text: {
        type: 'string',
        maxLength: RETRIEVAL_LIMITS.fetchBytes,
        'x-maxJsonBytes': RETRIEVAL_LIMITS.fetchBytes,
      },
      lineStart: { type: 'integer', minimum: 1 },
      lineEnd: { type: 'integer', minimum: 1 },
      ...pageOut,
    },
  },
  annotations: { title: 'Read a knowledge document', readOnlyHint: true, openWorldHint: true },
  overBudget: {
    hint: 'Chunks are bounded below the result budget; retry the same cursor.',
    next: { action: 'kb_fetch', input: { docId: '<docId>' } },
  },
});

export type MemorySearchInput = ToolInputOf<typeof memorySearch>;
export type MemorySearchOutput = ToolOutputOf<typeof memorySearch>;
export type KbSearchInput = ToolInputOf<typeof kbSearch>;
export type KbSearchOutput = ToolOutputOf<typeof kbSearch>;
export type KbFetchInput = ToolInputOf<typeof kbFetch>;
export type KbFetchOutput = ToolOutputOf<typeof kbFetch>;
