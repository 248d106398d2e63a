import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * The active span's context, carried the way a request needs it and no
 * further.
 *
 * `with` carries a context through everything `fn` awaits, like the SDK's
 * AsyncLocalStorageContextManager, but its AsyncLocalStorage is switched on
 * only while some `with` is running and off again when the last one has
 * settled. On Node 20 an enabled AsyncLocalStorage runs a hook on every
 * promise the process creates, whoever creates it; kept on all the time it
 * cost a traced Exec request 7 µs of the request thread (profiled), spent
 * mostly on promises of the HTTP parser, the body reader and the response,
 * which never make a span. So the request entry points run only the part
 * of a request that can make children (a handler: store transactions,
 * outbound calls) inside `with`; a read handler that settles within one
 * turn of the event loop leaves the hook off for every other request's I/O.
 *
 * `withSync` is for synchronous work (the result gate): it sets the
 * context for the duration of the call and costs no hook at all. A promise
 * started inside it does not carry the context past its first await: no
 * span is then made there, never a span under the wrong parent.
 */
export class RequestContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  private open = 0;
  private sync: Context | undefined;

  active(): Context {
    if (this.sync !== undefined) return this.sync;
    return (this.open > 0 ? this.storage.getStore() : undefined) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const outer = this.sync;
    this.sync = undefined;
    this.open++;
    let out: ReturnType<F>;
    try {
      out = this.storage.run(ctx, () => fn.apply(thisArg, args));
    } catch (err) {
      this.leave();
      throw err;
    } finally {
      this.sync = outer;
    }
    if (isThenable(out)) out.then(this.left, this.left);
    else this.leave();
    return out;
  }

  /** Runs synchronous `fn` with `ctx` active; see the class comment. */
  withSync<T>(ctx: Context, fn: () => T): T {
    const outer = this.sync;
    this.sync = ctx;
    try {
      return fn();
    } finally {
      this.sync = outer;
    }
  }

  /** Binds a function to `ctx` (each call runs inside `with`); other targets are returned as they are. */
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    const manager = this;
    return function bound(this: unknown, ...args: unknown[]) {
      return manager.with(ctx, fn, this, ...args);
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.open = 0;
    this.sync = undefined;
    this.storage.disable();
    return this;
  }

  /** Open `with` calls now (for the test of the switch). */
  get running(): number {
    return this.open;
  }

  private readonly left = (): void => this.leave();

  private leave(): void {
    if (this.open > 0 && --this.open === 0) this.storage.disable();
  }
}
