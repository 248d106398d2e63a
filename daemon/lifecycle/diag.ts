import type { Clock } from '../../lib/clock.js';
import { maskedWriter } from '../masking/log.js';
import type { SecretSet } from '../masking/secrets.js';

export type Diag = (event: string, detail: Record<string, unknown>) => void;

const WINDOW_MS = 10_000;
const PER_WINDOW = 20;

/**
 * Rate-limited internal diagnostics: at most PER_WINDOW lines per event kind
 * per window, then one line counting what was suppressed. Each line is
 * masked by value by the log's writer (daemon/masking/log.ts) before it
 * reaches `sink`: details may quote caller or operator text.
 */
export function createDiag(clock: Clock, secrets: SecretSet, sink: (line: string) => void): Diag {
  const write = maskedWriter(secrets, sink);
  const windows = new Map<string, { start: number; count: number; suppressed: number }>();
  return (event, detail) => {
    const now = clock.now();
    let w = windows.get(event);
    if (!w || now - w.start >= WINDOW_MS) {
      if (w && w.suppressed > 0)
        write(JSON.stringify({ t: new Date(now).toISOString(), event, suppressed: w.suppressed }));
      w = { start: now, count: 0, suppressed: 0 };
      windows.set(event, w);
    }
    if (w.count >= PER_WINDOW) {
      w.suppressed++;
      return;
    }
    w.count++;
    write(JSON.stringify({ t: new Date(now).toISOString(), event, ...detail }));
  };
}
