import { AsyncLocalStorage } from 'node:async_hooks';
import { isThenable } from './thenable.js';

/**
 * An `AsyncLocalStorage` that is switched on only while a `run` is open,
 * and off again when the last one has settled.
 *
 * Once any `AsyncLocalStorage` has run, Node 20 runs a hook on every
 * promise the process creates, whoever creates it, until every instance is
 * disabled again: measured on this daemon, 4–7 µs of every request,
 * including requests that never read the storage. Switching on and off
 * costs about 1.8 µs a pair, which is less. Outside every run there is
 * nothing to read: `get()` is then undefined without asking the storage.
 * Used by the store's nested-statement guard (daemon/store/tx-scope.ts) and
 * the tracing context (daemon/telemetry/request-context.ts).
 */
export class SwitchedStorage<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  private open = 0;

  /** Runs `fn` (synchronous or async) with `value` as the store of everything it awaits. */
  run<R>(value: T, fn: () => R): R {
    this.open++;
    let out: R;
    try {
      out = this.storage.run(value, fn);
    } catch (err) {
      this.leave();
      throw err;
    }
    if (isThenable(out)) out.then(this.left, this.left);
    else this.leave();
    return out;
  }

  get(): T | undefined {
    return this.open > 0 ? this.storage.getStore() : undefined;
  }

  /** Runs open now (for the tests of the switch). */
  get running(): number {
    return this.open;
  }

  /** Off now, whatever is still open (the tracing SDK's shutdown). */
  off(): void {
    this.open = 0;
    this.storage.disable();
  }

  private readonly left = (): void => this.leave();

  private leave(): void {
    if (this.open > 0 && --this.open === 0) this.storage.disable();
  }
}
