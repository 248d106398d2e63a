import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { SwitchedStorage } from '../../lib/switched-storage.js';

/**
 * The active span's context, carried the way a request needs it and no
 * further.
 *
 * `with` carries a context through everything `fn` awaits, like the SDK's
 * AsyncLocalStorageContextManager, but its storage is switched on only while
 * some `with` is running (lib/switched-storage.ts). Kept on all the time it
 * cost a traced Exec request 7 µs of the request thread (profiled), spent
 * mostly on hooks for promises of the HTTP parser, the body reader and the
 * response, which never make a span. So the request entry points run only the part
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
  private readonly storage = new SwitchedStorage<Context>();
  private sync: Context | undefined;

  active(): Context {
    return this.sync ?? this.storage.get() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    // A withSync around this call does not shadow the context given here.
    const outer = this.sync;
    this.sync = undefined;
    try {
      return this.storage.run(ctx, () => fn.apply(thisArg, args));
    } finally {
      this.sync = outer;
    }
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
    this.sync = undefined;
    this.storage.off();
    return this;
  }

  /** Open `with` calls now (for the test of the switch). */
  get running(): number {
    return this.storage.running;
  }
}
