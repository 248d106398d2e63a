/** What a declared tool's command printed, split into what the model reads and what the person sees. */
interface ToolOutput {
  /** The tool result the model reads. */
  readonly said: string;
  /** Drawn once for the person (the operator event stream), never sent to the model. */
  readonly shown?: string;
  /** A question for the person; the next call of the tool gets the answer as `answered`. */
  readonly ask?: string;
}

const KEYS = new Set(['said', 'shown', 'ask']);

/**
 * Plain text is all `said`. One JSON object whose keys are among said, shown
 * and ask, with string values and `said` present, is split; anything else
 * (other JSON included) is plain text, so a tool printing JSON data is not
 * misread.
 */
export function parseToolOutput(stdout: string): ToolOutput {
  const t = stdout.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return { said: stdout };
  let doc: unknown;
  try {
    doc = JSON.parse(t);
  } catch {
    return { said: stdout };
  }
  const o = doc as Record<string, unknown>;
  const keys = Object.keys(o);
  if (typeof o.said !== 'string' || !keys.every((k) => KEYS.has(k) && typeof o[k] === 'string'))
    return { said: stdout };
  return {
    said: o.said,
    ...(typeof o.shown === 'string' ? { shown: o.shown } : {}),
    ...(typeof o.ask === 'string' ? { ask: o.ask } : {}),
  };
}
