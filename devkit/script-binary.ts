import { writeFileSync } from 'node:fs';

/**
 * Writes an executable at `path` that runs the Node script `script` under
 * this Node with the arguments it is given: a stand-in for a runtime's
 * binary (`claude`, `codex`, `opencode`) a profile's `launch.binary` names.
 * Returns `path`.
 */
export function scriptBinary(path: string, script: string): string {
  writeFileSync(
    path,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)} "$@"\n`,
    { mode: 0o755 },
  );
  return path;
}
