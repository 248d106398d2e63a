import { SwitchedStorage } from '../../lib/switched-storage.js';

/**
 * Tells whether the running code is inside one of the store's own
 * transactions, so that a driver can refuse a statement that would wait for
 * the transaction it is part of (which would never end). Its storage is on
 * only while a transaction is open (lib/switched-storage.ts says why):
 * outside a transaction there is nothing to be inside of.
 */
export class TxScope {
  private readonly storage = new SwitchedStorage<true>();

  /** Runs `fn` as (part of) a transaction: `inside()` is true in everything it awaits. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.storage.run(true, fn);
  }

  inside(): boolean {
    return this.storage.get() === true;
  }
}
