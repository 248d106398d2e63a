import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import {
  JSON_BYTES_KEYWORD,
  LIMITS,
  RESULT_BUDGET_BYTES,
  jsonBytes,
} from '../../catalog/limits.js';
import { worstCaseBytes } from '../../catalog/worst-case.js';
import { worstCaseRows } from '../../scripts/gen/limits.js';
import { loadInputValidator } from '../../lib/input-validators.js';
import { compileInputCheck } from '../../daemon/exec/validate.js';
import { parseProfile, ProfileError } from '../../daemon/profile/parse.js';
import { runCli } from '../../devkit/cli.js';

const catalog = defaultCatalog();

test('every action and tool: the worst single-item result fits the budget with room to spare', () => {
  const rows = worstCaseRows(catalog);
  assert.equal(rows.length, catalog.entries.size + MCP_TOOLS.length);
  for (const r of rows) {
    assert.ok(
      r.bytes <= RESULT_BUDGET_BYTES,
      `${r.surface} ${r.name}: worst case ${r.bytes} bytes is over the ${RESULT_BUDGET_BYTES}-byte budget`,
    );
    assert.ok(
      r.bytes <= RESULT_BUDGET_BYTES * 0.85,
      `${r.surface} ${r.name}: worst case ${r.bytes} bytes leaves less than 15% of the budget`,
    );
  }
});

test('the worst-case calculation refuses a schema with an unbounded field, and counts escapes', () => {
  assert.throws(
    () =>
      worstCaseBytes({
        type: 'object',
        additionalProperties: false,
        properties: { s: { type: 'string' } },
      }),
    /\/s: string without maxLength/,
  );
  assert.throws(
    () => worstCaseBytes({ type: 'array', items: { type: 'string', maxLength: 1 } }),
    /array without maxItems/,
  );
  assert.throws(
    () => worstCaseBytes({ type: 'object', properties: {} }),
    /open to unknown properties/,
  );
  assert.equal(worstCaseBytes({ type: 'string', maxLength: 10 }), 62);
  assert.equal(worstCaseBytes({ type: 'string', maxLength: 10, [JSON_BYTES_KEYWORD]: 20 }), 22);
});

function inputStrings(
  schema: Record<string, unknown>,
  path: string,
  out: [string, Record<string, unknown>][],
): void {
  if (schema.type === 'string' && !Array.isArray(schema.enum)) out.push([path, schema]);
  for (const [k, v] of Object.entries(
    (schema.properties ?? {}) as Record<string, Record<string, unknown>>,
  ))
    inputStrings(v, `${path}/${k}`, out);
  for (const v of (schema.anyOf ?? []) as Record<string, unknown>[]) inputStrings(v, path, out);
}

test('every free input string of every action and tool carries a byte limit (which also refuses lone surrogates)', () => {
  const strings: [string, Record<string, unknown>][] = [];
  for (const { descriptor: d } of catalog.entries.values())
    inputStrings(d.input as Record<string, unknown>, `${d.domain} ${d.action} `, strings);
  for (const t of MCP_TOOLS)
    inputStrings(t.inputSchema as Record<string, unknown>, `${t.name} `, strings);
  assert.ok(strings.length > 20);
  for (const [where, s] of strings)
    assert.equal(typeof s[JSON_BYTES_KEYWORD], 'number', `${where} has no ${JSON_BYTES_KEYWORD}`);
});

test("the CLI's generated validators and the daemon's compiled ones agree on byte limits and surrogates", async () => {
  const cases = [
    'plain',
    '\ud800',
    'a\udfff',
    '\ud83d\ude00',
    '\u0000',
    '\u0001'.repeat(Math.floor(LIMITS.taskTitle.bytes / 6)),
    '\u0001'.repeat(Math.floor(LIMITS.taskTitle.bytes / 6) + 1),
    '"'.repeat(LIMITS.taskTitle.bytes / 2),
    '"'.repeat(LIMITS.taskTitle.bytes / 2 + 1),
    '\u{1F600}'.repeat(LIMITS.taskTitle.chars),
    '\u2028'.repeat(LIMITS.taskTitle.chars),
  ];
  const generated = (await loadInputValidator('task', 'create'))!;
  const daemon = compileInputCheck(catalog.get('task', 'create')!.descriptor);
  for (const title of cases) {
    const g = generated({ title });
    assert.deepEqual(g, daemon({ title }), JSON.stringify(title).slice(0, 40));
    const expected =
      title.length > 0 &&
      !/\p{Cs}/u.test(title) &&
      jsonBytes(title) <= LIMITS.taskTitle.bytes &&
      [...title].length <= LIMITS.taskTitle.chars;
    assert.equal(g.ok, expected, JSON.stringify(title).slice(0, 40));
    if (!g.ok) assert.ok(g.details.every((x) => x.path === '/title'));
  }
  // A description at its published maxLength is accepted in the costliest characters (a control character is 6 bytes as JSON), and one more is refused, by both.
  const max = LIMITS.taskDescription.chars;
  for (const [text, ok] of [
    ['\u0001'.repeat(max), true],
    ['\\'.repeat(max), true],
    ['\u{1F600}'.repeat(max), true],
    [`a${'\u0001'.repeat(max)}`, false],
  ] as const) {
    const input = { title: 't', description: text };
    assert.equal(
      generated(input).ok,
      ok,
      `${[...text].length} code points, ${jsonBytes(text)} bytes`,
    );
    assert.deepEqual(daemon(input), generated(input));
  }
  const lone = generated({ title: 'x\ud800' });
  assert.ok(!lone.ok);
  assert.match(lone.details[0]!.message, /unpaired surrogate/);
});

test('the profile obeys the same limits: long or ill-formed names and oversized lists are refused', () => {
  const agent = (over: Record<string, unknown>) => ({ agents: [{ id: 'a1', ...over }], teams: [] });
  assert.doesNotThrow(() =>
    parseProfile(agent({ displayName: '\u0001'.repeat(Math.floor(LIMITS.profileName.bytes / 6)) })),
  );
  for (const doc of [
    agent({ id: 'a'.repeat(LIMITS.agentId.chars + 1) }),
    agent({ id: '\u0001'.repeat(11) }),
    agent({ displayName: '\u0001'.repeat(Math.floor(LIMITS.profileName.bytes / 6) + 1) }),
    agent({ model: 'm\ud800' }),
    agent({ baseUrl: `https://example.com/${'p'.repeat(LIMITS.profileUrl.chars)}` }),
    agent({
      headers: Object.fromEntries(
        Array.from({ length: LIMITS.agentHeaders + 1 }, (_, i) => [`h${i}`, 'v']),
      ),
    }),
    {
      agents: [],
      teams: [
        {
          teamId: 't',
          members: Array.from({ length: LIMITS.teamMembers + 1 }, (_, i) => ({
            kind: 'human',
            handle: `u${i}`,
          })),
        },
      ],
    },
    {
      agents: [{ id: 'a1' }],
      teams: Array.from({ length: LIMITS.agentTeams + 1 }, (_, i) => ({
        teamId: `t${i}`,
        members: [{ kind: 'agent', handle: 'a1' }],
      })),
    },
  ]) {
    assert.throws(() => parseProfile(doc), ProfileError, JSON.stringify(doc).slice(0, 80));
  }
});

test('the CLI refuses, before sending anything, a lone surrogate and an input over its limit, naming each path and the limit', async () => {
  const stdin = `{"title":"ok \\ud800","description":${JSON.stringify('\u0001'.repeat(Math.floor(LIMITS.taskDescription.bytes / 6) + 1))}}`;
  const r = await runCli(['exec', 'task', 'create', '-'], { stdin });
  assert.equal(r.code, 2);
  const env = JSON.parse(r.stdout) as {
    error: { code: string; details: { path: string; message: string }[] };
  };
  assert.equal(env.error.code, 'validation_failed');
  assert.deepEqual([...new Set(env.error.details.map((d) => d.path))].sort(), [
    '/description',
    '/title',
  ]);
  assert.match(
    env.error.details.find((d) => d.path === '/description')!.message,
    new RegExp(`more than ${LIMITS.taskDescription.chars} characters`),
  );
});

test('text the daemon produces is cut to its schema bound by JSON bytes, on code point boundaries', async () => {
  const fc = (await import('fast-check')).default;
  const { clipJson, isWellFormedText: wellFormed } = await import('../../catalog/limits.js');
  const unit = fc.constantFrom('a', '"', '\u0001', '\u00e9', '\u{1F600}', '\u2028', '\ud800', '\n');
  fc.assert(
    fc.property(
      fc.array(unit, { maxLength: 400 }).map((x) => x.join('')),
      fc.integer({ min: 4, max: 300 }),
      fc.integer({ min: 2, max: 200 }),
      (s, bytes, chars) => {
        const out = clipJson(s, { chars, bytes });
        assert.ok(
          jsonBytes(out) <= bytes && [...out].length <= chars && wellFormed(out),
          JSON.stringify(out),
        );
        if (jsonBytes(s) <= bytes && [...s].length <= chars && wellFormed(s)) assert.equal(out, s);
      },
    ),
    { numRuns: 2000 },
  );
});

test('kb_fetch chunks count JSON bytes: a document of control characters comes back in chunks of at most 8192 bytes as JSON, all of it', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync: write, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join: pjoin } = await import('node:path');
  const { EmbeddedKnowledge } = await import('../../daemon/knowledge/kb-embedded.js');
  const { systemClock } = await import('../../lib/clock.js');
  const home = mkdtempSync(pjoin(tmpdir(), 'agentteam-kbfetch-'));
  try {
    mkdirSync(pjoin(home, 'kb'));
    const text = `# Title\n${'\u0001'.repeat(5000)}\n${'x\u0002"'.repeat(3000)}${'\u{1F600}'.repeat(3000)}`;
    write(pjoin(home, 'kb', 'doc.md'), text);
    const { gateWith } = await import('../../devkit/gate.js');
    const kb = new EmbeddedKnowledge({ home, clock: systemClock, gate: gateWith() });
    let got = '';
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const out = await kb.fetch({ docId: 'doc.md', ...(cursor ? { cursor } : {}) });
      assert.ok(jsonBytes(out.text) <= 8192, `${jsonBytes(out.text)} bytes`);
      got += out.text;
      if (!out.hasMore) break;
      cursor = out.nextCursor;
    }
    assert.equal(got, text);
    kb.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
