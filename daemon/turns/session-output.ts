/**
 * The session id a runtime names in its own output. `opencode run --format
 * json` writes one JSON event a line, each carrying the session it runs in
 * (`{"type":"step_start","sessionID":"ses_…",…}`). Only that id is taken,
 * and only when it has the shape of an OpenCode session id; nothing else of
 * the output is kept, logged or passed on (it may quote the prompt, tool
 * results or secrets).
 */

/** OpenCode's session ids: `ses_` and an alphanumeric tail. */
const OPENCODE_SESSION = /^ses_[0-9A-Za-z]{8,100}$/;
/** A longer line is skipped unread: the id is on every event, the short first ones too. */
const MAX_SESSION_LINE = 16 * 1024;

/** The session id of one line of `opencode run --format json`, or null. */
function opencodeSessionOf(line: string): string | null {
  if (line.length > MAX_SESSION_LINE || !line.startsWith('{')) return null;
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  const id = (event as { sessionID?: unknown } | null)?.sessionID;
  return typeof id === 'string' && OPENCODE_SESSION.test(id) ? id : null;
}

/**
 * Splits a byte stream into lines for `onLine` until it answers true (found
 * what it looked for); a line beyond `MAX_SESSION_LINE` bytes is dropped
 * whole, never buffered past that bound. Returns the data handler.
 */
function lineReader(onLine: (line: string) => boolean): (chunk: Buffer) => void {
  let held: Buffer[] = [];
  let size = 0;
  let skipping = false;
  let done = false;
  return (chunk) => {
    if (done) return;
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      from = nl + 1;
      if (!skipping && size + piece.length <= MAX_SESSION_LINE) {
        const line = Buffer.concat([...held, piece]).toString('utf8');
        if (onLine(line.endsWith('\r') ? line.slice(0, -1) : line)) {
          done = true;
          held = [];
          return;
        }
      }
      held = [];
      size = 0;
      skipping = false;
    }
    const rest = chunk.subarray(from);
    if (skipping || rest.length === 0) return;
    if (size + rest.length > MAX_SESSION_LINE) {
      skipping = true;
      held = [];
      size = 0;
      return;
    }
    held.push(rest);
    size += rest.length;
  };
}

/**
 * Watches a runtime's stdout (`reader`, given each chunk) for the session
 * it names: `record` is given the first id found; `named()` resolves, once
 * the runtime has exited, with whether one was.
 */
export function watchSession(
  record: (id: string) => Promise<void>,
  failed: (err: Error) => void,
): { reader: (chunk: Buffer) => void; named: () => Promise<boolean> } {
  let learned: Promise<boolean> = Promise.resolve(false);
  const reader = lineReader((line) => {
    const id = opencodeSessionOf(line);
    if (id)
      learned = record(id).then(
        () => true,
        (err: Error) => {
          failed(err);
          return true;
        },
      );
    return id !== null;
  });
  return { reader, named: () => learned };
}
