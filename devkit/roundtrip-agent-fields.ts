import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Field, FieldStore } from './roundtrip-field-store.js';
import type { startInProc } from './inproc.js';
import { inputProp, jsonText, ruleOf, RUNS, sameText } from './roundtrip.js';

/** Agent fields kept in profile.json, through the in-process daemon the test file opens. */
export async function agentFields(
  { validate }: FieldStore,
  t: TestContext,
  open: typeof startInProc,
): Promise<Field[]> {
  const fields: Field[] = [];
  // Agent displayName and model are written to profile.json by the daemon's handlers (the Exec route in process); read back by agent get and from
  // the file. Not here: id (an agent id pattern), baseUrl (a URL), apiKeyEnv (an environment variable name) and runtime (an enum) are validated for meaning.
  // A refusal must leave the profile revision as it was.
  const p = await open(t);
  const profileFile = join(p.home, 'profile.json');
  const agentCall = await p.runtime('s1', 'a1');
  const revisions = new Map<string, number>();
  const revisionNo = () => {
    const r = p.services.profile.revision;
    if (!revisions.has(r)) revisions.set(r, revisions.size);
    return revisions.get(r)!;
  };
  const ok = (r: { status: number; json: any }, what: string) => {
    assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.json).slice(0, 300)}`);
    return r.json.data;
  };
  ok(await agentCall('agent', 'create', { id: 'prop-base' }), 'agent create');
  let agentSeq = 0;
  for (const action of ['create', 'update'] as const) {
    for (const f of ['displayName', 'model'] as const) {
      fields.push({
        name: `agent ${action} ${f}`,
        path: `/${f}`,
        rule: ruleOf(inputProp('agent', action, f)),
        count: revisionNo,
        // Each accepted case rewrites profile.json (twice for create): a quarter of the cases keeps the run time small.
        runs: Math.ceil(RUNS / 4),
        async run(s, escaped) {
          const id = action === 'create' ? `prop-${++agentSeq}` : 'prop-base';
          const input = validate(`agent ${action}`, jsonText({ id, [f]: s }, escaped), `/${f}`);
          if (!input) return false;
          ok(await agentCall('agent', action, input), `agent ${action}`);
          sameText(
            ok(await agentCall('agent', 'get', { id }), 'agent get').agent[f],
            s,
            `agent ${action} ${f}`,
          );
          const doc = JSON.parse(readFileSync(profileFile, 'utf8')) as {
            agents: Record<string, unknown>[];
          };
          sameText(doc.agents.find((a) => a.id === id)![f], s, `profile.json ${f}`);
          // Created agents are removed again, so the file stays small.
          if (action === 'create') ok(await agentCall('agent', 'delete', { id }), 'agent delete');
          return true;
        },
      });
    }
  }

  return fields;
}
