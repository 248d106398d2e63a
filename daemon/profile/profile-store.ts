import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { EMPTY_PROFILE, type Profile } from './types.js';
import { parseProfile, type ParseOptions } from './parse.js';

export interface ReloadResult {
  readonly ok: boolean;
  readonly revision: string;
  readonly error?: string;
}

/**
 * Holds the current profile and its collection revision. The revision is
 * `<epoch>.<counter>`: the epoch is random per daemon start, so a cursor from
 * an earlier daemon never matches, and the counter bumps on every load —
 * including a reload whose file did not change (simpler than diffing, and
 * only costs a caller one restart of its walk).
 * An unreadable or invalid file is logged and the previous profile stays.
 */
export class ProfileStore {
  private current: Profile = EMPTY_PROFILE;
  private readonly epoch = randomBytes(6).toString('base64url');
  private counter = 0;

  constructor(
    readonly path: string,
    private readonly log: (msg: string) => void,
    private readonly parseOptions: ParseOptions = {},
  ) {
    this.reload();
  }

  get profile(): Profile {
    return this.current;
  }

  get revision(): string {
    return `${this.epoch}.${this.counter}`;
  }

  reload(): ReloadResult {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        return this.reject(`cannot read profile: ${(err as Error).message}`);
      return this.accept(EMPTY_PROFILE);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return this.reject('profile.json is not valid JSON');
    }
    try {
      return this.accept(parseProfile(doc, this.parseOptions));
    } catch (err) {
      return this.reject(`profile.json is invalid: ${(err as Error).message}`);
    }
  }

  private accept(p: Profile): ReloadResult {
    this.current = p;
    this.counter++;
    return { ok: true, revision: this.revision };
  }

  private reject(error: string): ReloadResult {
    this.log(`profile: ${error}; keeping the previous profile (revision ${this.revision})`);
    return { ok: false, revision: this.revision, error };
  }
}
