import type { Masked } from './masked.js';
import type { SecretSet } from './secrets.js';

/**
 * The log's writer: every line written to daemon.log (or the daemon's stderr
 * before it detaches) is masked by value here, with the same matcher as the
 * result gate, after the line is complete. Diagnostics quote caller and
 * operator text (a refused path, a tool declaration problem, an upstream's
 * error); no producer of a line needs to remember to mask it.
 */
export function maskedWriter(
  secrets: SecretSet,
  sink: (line: Masked) => void,
): (line: string) => void {
  return (line) => sink(secrets.matcher().replace(line) as Masked);
}
