import type { ErrorBody } from '../../catalog/envelope.js';

/**
 * Serialized MCP CallToolResult frames. The same JSON goes to
 * structuredContent and to the text block, so clients that ignore
 * structuredContent (and models reading text) see identical data.
 */

export function successResult(dataJson: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(dataJson)}}],"structuredContent":${dataJson},"isError":false}`;
}

/** A tool failure the model can act on: the error envelope as structured content and as text. */
export function errorResult(error: ErrorBody): string {
  const envelope = JSON.stringify({ ok: false, error });
  return `{"content":[{"type":"text","text":${JSON.stringify(envelope)}}],"structuredContent":${envelope},"isError":true}`;
}
