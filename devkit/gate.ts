import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock, type Clock } from '../lib/clock.js';
import { ResultGate } from '../daemon/results/gate.js';
import { SecretSet } from '../daemon/masking/secrets.js';
import { SpillStore } from '../daemon/results/spill.js';
import { fixedSource } from '../daemon/masking/sources.js';

/** A result gate masking `pairs` (name -> value), spilling under `spillDir` (default: a shared temp folder). */
export function gateWith(
  pairs: Record<string, string> = {},
  spillDir = join(tmpdir(), 'agentteam-test-spill'),
  clock: Clock = systemClock,
): ResultGate {
  const secrets = new SecretSet();
  for (const [k, v] of Object.entries(pairs)) secrets.add(fixedSource(k, v));
  return new ResultGate(secrets, new SpillStore({ dir: spillDir, clock }));
}
