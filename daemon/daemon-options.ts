import type { KeyObject } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { TokenSigner } from './auth/signer.js';
import type { TokenWriter } from './auth/token-file.js';
import type { DirRemover } from './auth/private-dir.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import type { StoreUrl } from '../lib/store-url.js';

/** What starts one daemon (daemon/server.ts): the home, the address, and the test injection points. */
export interface DaemonOptions {
  readonly home: string;
  readonly listen?: string;
  readonly allowRemote?: boolean;
  /** Extra Host/Origin names accepted besides the listen address and loopback (needs allowRemote). */
  readonly allowHosts?: readonly string[];
  readonly clock?: Clock;
  /** Fault injection and fixed keys for tests; production uses the defaults. */
  readonly key?: KeyObject;
  readonly signer?: TokenSigner;
  readonly writer?: TokenWriter;
  readonly remover?: DirRemover;
  readonly defaultTtlMs?: number;
  readonly log?: (line: string) => void;
  /** Idempotency record window and bound; tests shrink them. */
  readonly idempotency?: IdempotencyLimits;
  /** A shared PostgreSQL team store; without it, the embedded SQLite file in the home. */
  readonly store?: StoreUrl;
  /** Test fault point: hold each scheduled delivery's transaction open this long before it commits. */
  readonly holdDeliveryMs?: number;
  /** Test timing: how long a running turn's heartbeat may be missing before another daemon interrupts it. */
  readonly turnStaleMs?: number;
  /** Overrides the RLIMIT_NOFILE the connection cap is derived from (tests). */
  readonly descriptorLimit?: number;
}
