import type { StoreContext } from './context.js';
import { storeDomain } from './domain.js';
import type { Migration } from './migrations.js';

const DEVICES_MIGRATION: Migration = {
  id: '011_devices',
  up(db) {
    db.exec(`
    CREATE TABLE devices (
      id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, token_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL, last_used_at INTEGER, revoked_at INTEGER
    ) STRICT;
    CREATE INDEX devices_by_owner ON devices (owner, created_at DESC, id DESC);
    `);
  },
};

/** One paired device as the store holds it: its token only as a hash. */
export interface DeviceRow {
  readonly id: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

interface Raw {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

const COLUMNS = 'id, name, token_hash, created_at, last_used_at, revoked_at';
const rowOf = (r: Raw): DeviceRow => ({
  id: r.id,
  name: r.name,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** The most devices one home keeps paired (revoked ones are not counted). */
const DEVICES_MAX = 64;

/**
 * Paired devices in the team store, each owned by one home (`owner`, the
 * home's instance id): a device paired with one daemon is not a device of
 * another daemon sharing the store. Tokens are kept as SHA-256 hashes.
 */
export class DeviceStore {
  constructor(private readonly s: StoreContext) {}

  /** Adds a device unless the home already has DEVICES_MAX; false when it is full. */
  add(owner: string, id: string, name: string, tokenHash: string): Promise<boolean> {
    return this.s.sql.tx(
      async (q) => {
        const n = await q.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM devices WHERE owner = ? AND revoked_at IS NULL',
          [owner],
        );
        if ((n?.n ?? 0) >= DEVICES_MAX) return false;
        await q.run(
          'INSERT INTO devices (id, owner, name, token_hash, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL, NULL)',
          [id, owner, name, tokenHash, this.s.now()],
        );
        return true;
      },
      { lockKey: `devices:${owner}`, lockOnly: true },
    );
  }

  /** A device that is not revoked, or undefined. */
  async active(owner: string, id: string): Promise<DeviceRow | undefined> {
    const r = await this.s.sql.get<Raw>(
      `SELECT ${COLUMNS} FROM devices WHERE id = ? AND owner = ? AND revoked_at IS NULL`,
      [id, owner],
    );
    return r && rowOf(r);
  }

  async list(owner: string): Promise<DeviceRow[]> {
    const rows = await this.s.sql.all<Raw>(
      `SELECT ${COLUMNS} FROM devices WHERE owner = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ${DEVICES_MAX}`,
      [owner],
    );
    return rows.map(rowOf);
  }

  /** Marks a device revoked; false when there was no such active device. */
  async revoke(owner: string, id: string): Promise<boolean> {
    const r = await this.s.sql.run(
      'UPDATE devices SET revoked_at = ? WHERE id = ? AND owner = ? AND revoked_at IS NULL',
      [this.s.now(), id, owner],
    );
    return r.changes > 0;
  }

  /** Notes when a device was last seen (at most once a minute per device, by the caller). */
  async touch(id: string, at: number): Promise<void> {
    await this.s.sql.run(
      'UPDATE devices SET last_used_at = ? WHERE id = ? AND revoked_at IS NULL',
      [at, id],
    );
  }
}

/** Devices: no catalog actions (agents never see them), one table. */
export const deviceDomain = storeDomain(
  (ctx) => new DeviceStore(ctx),
  () => [],
  [DEVICES_MIGRATION],
);
