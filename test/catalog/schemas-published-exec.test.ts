import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { defaultCatalog } from '../../catalog/catalog.js';
import { call, closeHttp, type HttpResult } from '../../devkit/http.js';
import { ROOT, pool, runCli } from '../../devkit/cli.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import {
  UNITS,
  inputWith,
  longest,
  oneTooLong,
  pointer,
  stringFields,
  type Schema,
  type Unit,
} from '../../devkit/published.js';

/**
 * A published input schema is a promise: what it admits must be accepted.
 * For every Exec action, as `agentteam exec D A --input-schema` and the
 * OpenAPI document publish it, and every string field in it (nested ones
 * too), the longest value it admits written in ASCII, emoji, quotes and
 * control characters goes through the real daemon and must pass validation
 * (a later domain answer, such as not_found for a made-up id, is fine); one
 * code point more must be refused as validation_failed naming the field
 * and its limit.
 */

test.after(() => closeHttp());

/** The daemon's answer when the input schema refuses a body (daemon/exec/route.ts). */
const SCHEMA_REFUSAL = 'the input does not match the action schema';

const refusedBySchema = (r: HttpResult): boolean =>
  r.json?.error?.code === 'validation_failed' && r.json.error.message === SCHEMA_REFUSAL;

test('every string an Exec input schema publishes as admitted is accepted; one code point more is refused naming the limit', async (t) => {
  const actions = [...defaultCatalog().entries.values()].map((e) => e.descriptor);
  const openapi = JSON.parse(readFileSync(`${ROOT}specs/openapi.json`, 'utf8')) as {
    paths: Record<
      string,
      { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
    >;
    components: { schemas: Record<string, Schema> };
  };
  const printed = await pool(
    actions.map((d) => () => runCli(['exec', d.domain, d.action, '--input-schema'])),
  );
  const published = actions.map((d, i) => {
    assert.equal(printed[i]!.code, 0, printed[i]!.stderr);
    const { $schema: _dialect, $id: _id, ...schema } = JSON.parse(printed[i]!.stdout) as Schema;
    const ref =
      openapi.paths[`/${d.domain}/${d.action}`]!.post.requestBody.content['application/json']!
        .schema.$ref;
    assert.deepEqual(
      openapi.components.schemas[ref.split('/').pop()!],
      schema,
      `${d.domain} ${d.action}: --input-schema and the OpenAPI document publish the same schema`,
    );
    return { name: `${d.domain} ${d.action}`, domain: d.domain, action: d.action, schema };
  });

  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 's1', agent: 'walker' });
  t.after(() => rt.close());

  for (const a of published) {
    const fields = stringFields(a.schema);
    await t.test(a.name, async () => {
      for (const f of fields) {
        const where = `${a.name} ${pointer(f.path)}`;
        for (const unit of Object.keys(UNITS) as Unit[]) {
          const value = longest(f.schema, unit);
          if (value === undefined) continue;
          const r = await call(rt, a.domain, a.action, inputWith(a.schema, f.path, value));
          assert.ok(
            !refusedBySchema(r),
            `${where}: the longest ${unit} value it publishes (${[...value].length} code points) is refused: ${r.text.slice(0, 400)}`,
          );
          // Nor may the body limit or a fault stop it (a read's over-budget page is its paging answer, not a refusal of the input).
          assert.ok(
            r.status !== 413 && r.status < 500,
            `${where}, ${unit}: ${r.text.slice(0, 300)}`,
          );
          const over = await call(
            rt,
            a.domain,
            a.action,
            inputWith(a.schema, f.path, oneTooLong(f.schema, unit)),
          );
          assert.ok(
            refusedBySchema(over),
            `${where}: one ${unit} code point over maxLength passed: ${over.text.slice(0, 300)}`,
          );
          const detail = (over.json.error.details as { path: string; message: string }[]).find(
            (x) => x.path === pointer(f.path) && x.message.includes(String(f.schema.maxLength)),
          );
          assert.ok(
            detail,
            `${where}, ${unit}: the refusal names the field and its limit ${f.schema.maxLength}: ${JSON.stringify(over.json.error.details)}`,
          );
        }
      }
    });
  }
});
