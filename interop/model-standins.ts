import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback stand-ins for the model APIs of Claude Code (Anthropic Messages)
 * and Codex (OpenAI Responses). Each answers the runtime's first turn with
 * one call of the agentteam `message_send` tool, and the turn that carries
 * the tool's result with a short final answer that quotes it, so the tool
 * really runs inside the real runtime. The content of the message is the
 * marker found in the user's prompt (`interop-<name>-<n>`).
 */
export interface StandIn {
  readonly url: string;
  /** Every request seen (path, body, headers), for diagnostics and the checks on what reached the model. */
  readonly seen: { path: string; body: any; headers: IncomingMessage['headers'] }[];
  /** Tool results the runtime sent back (text). */
  readonly results: string[];
  close(): Promise<void>;
}

const TOOL = 'mcp__agentteam__message_send';
/**
 * The message the test asks the runtime to send: the word after "Send " in
 * the user's prompt. Anchored on "Send ", because the runtimes also put
 * their working directory in the context (`/tmp/agentteam-interop-home-…`),
 * whose random suffix can itself look like a marker.
 */
const MARKER = /\bSend (interop-[a-z]+-\d+)\b/g;

export function markerIn(haystack: string): string | undefined {
  return [...haystack.matchAll(MARKER)].pop()?.[1];
}

function readBody(req: IncomingMessage): Promise<any> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      } catch {
        resolve(null);
      }
    });
  });
}

export function sse(res: ServerResponse, events: [string, unknown][]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events)
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

export async function start(
  handle: (path: string, body: any, res: ServerResponse, s: StandIn) => void,
): Promise<StandIn> {
  const seen: StandIn['seen'] = [];
  const results: string[] = [];
  let server: Server;
  const s = {
    url: '',
    seen,
    results,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = (req.url ?? '').split('?')[0] ?? '';
    seen.push({ path, body, headers: req.headers });
    try {
      handle(path, body, res, s);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return s;
}

export const text = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x ?? ''));

/**
 * What an Anthropic stand-in answers before the model: token counts, and 404
 * for anything but `/v1/messages`. True when it has answered.
 */
export function anthropicAside(path: string, res: ServerResponse): boolean {
  if (path.endsWith('/count_tokens')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
    return true;
  }
  if (path.endsWith('/v1/messages')) return false;
  res.writeHead(404).end();
  return true;
}

/** The same for a Responses stand-in: an empty model list, and 404 for anything but `/responses`. */
export function responsesAside(path: string, res: ServerResponse): boolean {
  if (path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
    return true;
  }
  if (path.endsWith('/responses')) return false;
  res.writeHead(404).end();
  return true;
}

/** A finished assistant message of the Responses API with one text. */
export const responsesText = (id: string, text: string) => ({
  type: 'message',
  id,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/** Anthropic Messages API (`POST /v1/messages`, streamed or not) as Claude Code calls it. */
export function startAnthropicStandIn(): Promise<StandIn> {
  return start((path, body, res, s) => {
    if (anthropicAside(path, res)) return;
    const messages: any[] = body?.messages ?? [];
    const hasTool = (body?.tools ?? []).some((t: any) => t?.name === TOOL);
    const toolResult = messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((c: any) => c?.type === 'tool_result');
    const marker = markerIn(text(messages));
    let block: any;
    let stop: string;
    if (hasTool && marker && !toolResult) {
      block = {
        type: 'tool_use',
        id: `toolu_${Date.now()}`,
        name: TOOL,
        input: { target: 'channel:interop', content: marker },
      };
      stop = 'tool_use';
    } else {
      if (toolResult) s.results.push(text(toolResult.content));
      block = {
        type: 'text',
        text: toolResult ? `done: ${text(toolResult.content).slice(0, 200)}` : 'ok',
      };
      stop = 'end_turn';
    }
    anthropicReply(res, body, block, stop);
  });
}

/** OpenAI Responses API (`POST /v1/responses`, streamed) as Codex calls it. */
export function startOpenAIStandIn(): Promise<StandIn> {
  return start((path, body, res, s) => {
    if (responsesAside(path, res)) return;
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    // Current Codex groups an MCP server's tools in a `namespace` tool (`mcp__agentteam` + `message_send`);
    // older builds list flat functions named `mcp__agentteam__message_send`.
    const tools: any[] = body?.tools ?? [];
    const space = tools.find(
      (t) =>
        t?.type === 'namespace' &&
        t?.name === 'mcp__agentteam' &&
        (t.tools ?? []).some((x: any) => x?.name === 'message_send'),
    );
    const flat = tools.some((t) => (t?.name ?? t?.function?.name) === TOOL);
    const output = input.find((i) => i?.type === 'function_call_output');
    const marker = markerIn(text(input));
    const id = `resp_${Date.now()}`;
    let item: any;
    if (marker && !output && (space || flat)) {
      const args = JSON.stringify({ target: 'channel:interop', content: marker });
      const named = space ? { name: 'message_send', namespace: 'mcp__agentteam' } : { name: TOOL };
      item = {
        type: 'function_call',
        id: `fc_${Date.now()}`,
        call_id: `call_${Date.now()}`,
        ...named,
        arguments: args,
        status: 'completed',
      };
    } else {
      if (output) s.results.push(text(output.output));
      item = responsesText(
        `msg_${Date.now()}`,
        output ? `done: ${text(output.output).slice(0, 200)}` : 'ok',
      );
    }
    responsesReply(res, body, item, id);
  });
}

/** Answers one Messages request with one content block (tool_use or text), streamed when it asked. */
export function anthropicReply(res: ServerResponse, body: any, block: any, stop: string): void {
  const id = `msg_${Date.now()}`;
  const usage = { input_tokens: 10, output_tokens: 5 };
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: body?.model ?? 'stand-in',
    content: [block],
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
  if (!body?.stream)
    return void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(message));
  const startBlock =
    block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
      : { type: 'text_delta', text: block.text };
  sse(res, [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: startBlock }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

/** Answers one Responses request with one output item, streamed. */
export function responsesReply(res: ServerResponse, body: any, item: any, id: string): void {
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: body?.model ?? 'stand-in',
    output: [item],
    usage,
  };
  sse(res, [
    [
      'response.created',
      { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    ],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response }],
  ]);
}
