import { strict as assert } from 'node:assert';
import { rpc } from './http.js';

let rpcId = 0;

/** One MCP tools/call over raw HTTP: the structured result, or the error envelope's `error` when isError. */
export async function callTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; data: unknown }> {
  const res = await rpc(url, token, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  assert.equal(res.status, 200, res.body);
  const body = JSON.parse(res.body) as {
    result?: { isError: boolean; content: { text: string }[]; structuredContent?: unknown };
  };
  assert.ok(body.result, res.body);
  const text = body.result.content[0]?.text ?? '';
  return {
    isError: body.result.isError,
    data: body.result.isError
      ? (JSON.parse(text) as { error: unknown }).error
      : body.result.structuredContent,
  };
}

export interface ToolError {
  code: string;
  message: string;
  hint?: string;
  metadata?: Record<string, unknown>;
}
