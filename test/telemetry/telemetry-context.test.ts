import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ROOT_CONTEXT, createContextKey, type Context } from '@opentelemetry/api';
import { RequestContextManager } from '../../daemon/telemetry/request-context.js';

/**
 * The tracing context manager: a context follows everything a `with` awaits
 * and nothing else; the storage behind it is on only while a `with` runs;
 * `withSync` never lends its context to work that outlives the call.
 */

const KEY = createContextKey('test.request');
const ctxOf = (name: string): Context => ROOT_CONTEXT.setValue(KEY, name);
const nameIn = (m: RequestContextManager): unknown => m.active().getValue(KEY);
const tick = () => new Promise((r) => setImmediate(r));

test('with: the context follows every await of fn, is gone outside, and the storage is off once the last with settles', async () => {
  const m = new RequestContextManager();
  assert.equal(nameIn(m), undefined);
  const seen: unknown[] = [];
  const out = await m.with(ctxOf('a'), async () => {
    seen.push(nameIn(m));
    await tick();
    seen.push(nameIn(m));
    await new Promise((r) => setTimeout(r, 2));
    seen.push(nameIn(m));
    return 7;
  });
  assert.equal(out, 7);
  assert.deepEqual(seen, ['a', 'a', 'a']);
  await tick();
  assert.equal(m.running, 0);
  assert.equal(nameIn(m), undefined);
  // A synchronous fn: its context is active during the call only.
  assert.equal(
    m.with(ctxOf('s'), () => nameIn(m)),
    's',
  );
  assert.equal(m.running, 0);
  assert.equal(nameIn(m), undefined);
});

test('with: a rejection or a throw leaves it as it was', async () => {
  const m = new RequestContextManager();
  await assert.rejects(
    m.with(ctxOf('r'), async () => {
      await tick();
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.throws(
    () =>
      m.with(ctxOf('t'), () => {
        throw new Error('sync boom');
      }),
    /sync boom/,
  );
  await tick();
  assert.equal(m.running, 0);
  assert.equal(nameIn(m), undefined);
});

test('withSync: the context is active during the call; a promise begun inside does not carry it past an await', async () => {
  const m = new RequestContextManager();
  let later: Promise<unknown> | undefined;
  const during = m.withSync(ctxOf('gate'), () => {
    later = (async () => {
      await tick();
      return nameIn(m);
    })();
    return nameIn(m);
  });
  assert.equal(during, 'gate');
  assert.equal(await later, undefined, 'no context after the call, rather than a wrong one');
  // Inside an async with, a withSync is its own context while it runs, and the with's again after.
  await m.with(ctxOf('handler'), async () => {
    await tick();
    assert.equal(
      m.withSync(ctxOf('gate'), () => nameIn(m)),
      'gate',
    );
    assert.equal(nameIn(m), 'handler');
    // An async with inside a withSync is not shadowed by it.
    const inner = m.withSync(ctxOf('gate'), () =>
      m.with(ctxOf('tx'), async () => {
        await tick();
        return nameIn(m);
      }),
    );
    assert.equal(await inner, 'tx');
    assert.equal(nameIn(m), 'handler');
  });
  assert.equal(m.running, 0);
});

test('bind: a bound function runs in its context wherever it is called from', async () => {
  const m = new RequestContextManager();
  const bound = m.bind(ctxOf('bound'), async (x: number) => {
    await tick();
    return `${String(nameIn(m))}:${x}`;
  });
  assert.equal(await bound(3), 'bound:3');
  const obj = { not: 'a function' };
  assert.equal(m.bind(ctxOf('x'), obj), obj);
});

test('property: interleaved requests each see only their own context at every step, nested or not', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.array(fc.constantFrom('tick', 'timer', 'micro', 'sync', 'nest'), { maxLength: 6 }),
        { minLength: 1, maxLength: 8 },
      ),
      async (plans) => {
        const m = new RequestContextManager();
        const wrong: string[] = [];
        const step = async (name: string, kind: string): Promise<void> => {
          if (kind === 'tick') await tick();
          else if (kind === 'timer') await new Promise((r) => setTimeout(r, 0));
          else if (kind === 'micro') await Promise.resolve();
          else if (kind === 'sync') {
            const got = m.withSync(ctxOf(`${name}/sync`), () => nameIn(m));
            if (got !== `${name}/sync`) wrong.push(`${name} sync saw ${String(got)}`);
          } else {
            const got = await m.with(ctxOf(`${name}/nest`), async () => {
              await tick();
              return nameIn(m);
            });
            if (got !== `${name}/nest`) wrong.push(`${name} nest saw ${String(got)}`);
          }
          const now = nameIn(m);
          if (now !== name) wrong.push(`${name} after ${kind} saw ${String(now)}`);
        };
        await Promise.all(
          plans.map((plan, i) =>
            m.with(ctxOf(`r${i}`), async () => {
              for (const kind of plan) await step(`r${i}`, kind);
            }),
          ),
        );
        assert.deepEqual(wrong, []);
        assert.equal(m.running, 0);
        assert.equal(nameIn(m), undefined);
      },
    ),
    { numRuns: 60 },
  );
});
