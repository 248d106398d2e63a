import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import type { Masked } from '../masking/masked.js';
import type { SpillStore } from './spill.js';
import { boundJsonText, jsonTextBytes, leastCut } from './json-text.js';

/**
 * The one tool-error format the model reads, whatever the tool's source
 * (built-in, declared, client): the error envelope `{"ok":false,"error":{...}}`
 * as the text of the only block, isError set. The code is one of the closed
 * table's for the daemon's own failures, and the app's own snake_case code
 * when a client tool's app answered with an error.
 */
export function toolErrorFrame(error: { readonly code: string; readonly message: string }): string {
  const envelope = JSON.stringify({ ok: false, error });
  return `{"content":[{"type":"text","text":${JSON.stringify(envelope)}}],"isError":true}`;
}

/**
 * An app's own error (already masked) held to the result budget: a message
 * that does not fit keeps head and tail with a note naming the spill file
 * that holds the whole. The message sits inside two JSON strings (the
 * envelope, then the text block), where an escape costs at most twice what
 * it costs in one, so half the room left is what it may take in one.
 */
export function boundToolError(
  error: { readonly code: Masked; readonly message: Masked },
  spill: SpillStore,
  budget: number = RESULT_BUDGET_BYTES,
): Masked {
  const whole = toolErrorFrame(error);
  if (whole.length <= budget / 3 || bytes(whole) <= budget) return whole as Masked;
  const room = Math.floor((budget - bytes(toolErrorFrame({ ...error, message: '' }))) / 2);
  const message = boundJsonText(error.message, room, spill).text;
  return toolErrorFrame({ code: error.code, message }) as Masked;
}

/**
 * The MCP CallToolResult of an answer from outside the daemon (a client
 * tool's content blocks, or a stdio app's text and structured JSON), held
 * to the result budget as a whole: the serialized frame, every block,
 * escapes and structuredContent included, is what is measured.
 *
 * A frame within budget is sent byte for byte, images included. Otherwise:
 * 1. images give way first, the largest first, until the frame fits: each
 *    is written to a spill file (its bytes, `.png` and the like) and
 *    replaced by a text block naming the type, the size and the file;
 * 2. then text: the room the other parts leave is shared evenly between
 *    the text blocks (a block smaller than its share keeps all of it and
 *    leaves the rest to the others); a block over its share keeps head and
 *    tail with a note naming the spill file that holds the whole.
 * structuredContent and the blocks' other fields are never cut: when they
 * (with one note per cut block) cannot fit, the answer is refused with a
 * message saying so, and nothing is sent.
 */

type Block = Record<string, unknown>;

/** An answer already masked and redacted (tool-answer.ts). */
interface ScreenedAnswer {
  readonly content: readonly Block[];
  readonly structured?: { readonly value: unknown };
  readonly isError: boolean;
}

type FrameOutcome =
  | { readonly ok: true; readonly frame: Masked }
  | { readonly ok: false; readonly message: string };

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const isImage = (b: Block) =>
  b.type === 'image' && typeof b.data === 'string' && typeof b.mimeType === 'string';
const isText = (b: Block) => b.type === 'text' && typeof b.text === 'string';

export function boundToolFrame(
  answer: ScreenedAnswer,
  spill: SpillStore,
  budget: number = RESULT_BUDGET_BYTES,
): FrameOutcome {
  const v = answer.structured?.value;
  const blocks: Block[] = [...answer.content];
  // MCP's structuredContent must be an object; any structured value also travels as a JSON text block.
  if (answer.structured) blocks.push({ type: 'text', text: JSON.stringify(v) });
  const asObject = v !== null && typeof v === 'object' && !Array.isArray(v);
  const frameOf = (bs: readonly Block[]) =>
    JSON.stringify({
      content: bs,
      ...(asObject ? { structuredContent: v } : {}),
      isError: answer.isError,
    });
  const whole = frameOf(blocks);
  if (whole.length <= budget / 3 || bytes(whole) <= budget)
    return { ok: true, frame: whole as Masked };

  const sizes = blocks.map((b) => bytes(JSON.stringify(b)));
  const overhead = bytes(frameOf([])) + Math.max(0, blocks.length - 1);
  const total = () => overhead + sizes.reduce((a, b) => a + b, 0);
  const referenced = new Set<number>();
  const images = blocks
    .map((_, i) => i)
    .filter((i) => isImage(blocks[i]!))
    .sort((a, b) => sizes[b]! - sizes[a]!);
  for (const i of images) {
    if (total() <= budget) break;
    blocks[i] = imageReference(blocks[i]!, spill, budget);
    sizes[i] = bytes(JSON.stringify(blocks[i]));
    referenced.add(i);
  }
  if (total() <= budget) return { ok: true, frame: frameOf(blocks) as Masked };

  const cuttable = blocks.map((_, i) => i).filter((i) => !referenced.has(i) && isText(blocks[i]!));
  const cost = new Map(cuttable.map((i) => [i, jsonTextBytes(blocks[i]!.text as string)]));
  const fixed = total() - [...cost.values()].reduce((a, b) => a + b, 0);
  const shares = fairShares(cost, budget - fixed);
  const refused = {
    ok: false as const,
    message: `the result is ${bytes(whole)} bytes after masking; even with its text cut it does not fit the ${budget / 1024} KiB result budget, because what is never cut (structuredContent, image references, the blocks' other fields, and a note naming the spill file for each cut text block) takes too much of it`,
  };
  // Check every cut can be made before any text is spilled.
  for (const i of cuttable)
    if (
      shares.get(i)! < cost.get(i)! &&
      shares.get(i)! < leastCut(blocks[i]!.text as string, spill)
    )
      return refused;
  for (const i of cuttable) {
    if (shares.get(i)! >= cost.get(i)!) continue;
    blocks[i] = {
      ...blocks[i],
      text: boundJsonText(blocks[i]!.text as Masked, shares.get(i)!, spill).text,
    };
  }
  const frame = frameOf(blocks);
  return bytes(frame) <= budget ? { ok: true, frame: frame as Masked } : refused;
}

/**
 * Max-min fair shares of `room` between blocks of the given costs: in order
 * of cost, each gets the lesser of its cost and an even share of what is
 * left, so small blocks stay whole and large ones split the rest evenly.
 */
function fairShares(cost: ReadonlyMap<number, number>, room: number): Map<number, number> {
  const out = new Map<number, number>();
  let left = room;
  let k = cost.size;
  for (const [i, c] of [...cost].sort((a, b) => a[1] - b[1])) {
    const give = Math.min(c, Math.floor(left / k));
    out.set(i, give);
    left -= give;
    k--;
  }
  return out;
}

/** An image block as a text block naming its spill file; its other fields (annotations) stay. */
function imageReference(b: Block, spill: SpillStore, budget: number): Block {
  const { data, mimeType, ...rest } = b;
  const file = spill.writeImage(data as Masked, mimeType as string);
  const text = `[image ${mimeType as string}, ${file.bytes} bytes, not sent inline: the result was over its ${budget / 1024} KiB budget; the image is in ${file.path}]`;
  return { ...rest, type: 'text', text };
}
