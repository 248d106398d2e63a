import type { ErrorBody } from '../../catalog/envelope.js';
import { fitErrorBody } from '../../catalog/error-limits.js';
import { toolErrorFrame } from '../results/tool-frame.js';

/**
 * Serialized MCP CallToolResult frames. The same JSON goes to
 * structuredContent and to the text block, so clients that ignore
 * structuredContent (and models reading text) see identical data.
 */

export function successResult(dataJson: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(dataJson)}}],"structuredContent":${dataJson},"isError":false}`;
}

/**
 * A tool failure the model can act on: the error envelope as text. It is not
 * sent as structuredContent because structuredContent must match the tool's
 * outputSchema (the official client validates it even when isError is set).
 */
export function errorResult(error: ErrorBody): string {
  // The envelope is at most 8 KiB; the result that carries it as escaped text is held to 8 KiB too.
  const fitted = fitErrorBody(error, (e) => Buffer.byteLength(toolErrorFrame(e), 'utf8'));
  return toolErrorFrame(fitted);
}
