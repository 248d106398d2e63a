import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEnv, tempHome } from '../../devkit/daemon.js';
import { answerRuntime } from '../../devkit/turns.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The fenced blocks of one README section, in order, with their language. */
function blocks(section: string): { lang: string; body: string }[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  assert.ok(start >= 0, `README has a "${section}" section`);
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] as string,
    body: m[2] as string,
  }));
}

/** One command line as the shell would split it: words, 'single' and "double" quotes, a trailing # comment. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      assert.ok(close > i, `unclosed quote in: ${line}`);
      cur += line.slice(i + 1, close);
      i = close;
      inWord = true;
    } else if (c === ' ') {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

test("README's hello-agent walkthrough, run as written: the agent's answer is in the DM, replying to the person's message", async (t) => {
  const [json, sh, ...rest] = blocks('Hello, agent');
  assert.equal(rest.length, 0, 'the walkthrough has one profile and one command block');
  assert.equal(json?.lang, 'json');
  assert.equal(sh?.lang, 'sh');
  const profile = JSON.parse(json.body) as { agents: Record<string, unknown>[] };
  const [agent] = profile.agents;
  assert.ok(agent, 'the profile describes an agent');
  assert.equal(agent.runtime, 'claude', 'the walkthrough configures Claude Code');
  // The one substitution: a scripted runtime in place of Claude Code (no model here).
  agent.runtime = 'generic';
  agent.launch = { command: answerRuntime() };

  const { home, env, track } = tempHome(t);
  writeFileSync(join(home, 'profile.json'), JSON.stringify(profile));
  const lines = sh.body.split('\n').filter((l) => l.trim() !== '');
  assert.ok(
    lines.every((l) => l.startsWith('agentteam ')),
    'every line is an agentteam command',
  );

  let posted: { message: { id: string }; turns: { turnId: string; state: string }[] } | null = null;
  let stopped = false;
  for (const line of lines) {
    const args = words(line).slice(1);
    if (args[0] === 'turn' && args[1] === 'list') {
      // "queued, then running, then succeeded": the person runs it again until the turn has ended.
      const until = Date.now() + 20_000;
      for (;;) {
        const r = await cliEnv(args, env);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        const turns = JSON.parse(r.stdout).data.turns as { state: string; replied: boolean }[];
        assert.equal(turns.length, 1, r.stdout);
        const [turn] = turns;
        if (turn?.state === 'succeeded') {
          assert.equal(turn.replied, true);
          break;
        }
        assert.ok(['queued', 'running'].includes(turn?.state ?? ''), r.stdout);
        assert.ok(Date.now() < until, `the turn stayed ${turn?.state}`);
        await new Promise((res) => setTimeout(res, 100));
      }
      continue;
    }
    const r = await cliEnv(args, env);
    assert.equal(r.code, 0, `${line}\n${r.stderr}${r.stdout}`);
    if (args[0] === 'daemon' && args[1] === 'start') track(JSON.parse(r.stdout).pid);
    if (args[0] === 'daemon' && args[1] === 'stop') stopped = true;
    if (args[0] === 'message' && args[1] === 'post') {
      posted = JSON.parse(r.stdout).data;
      assert.equal(posted?.turns.length, 1, 'the post queued one turn');
    }
    if (args[0] === 'message' && args[1] === 'history') {
      const items = JSON.parse(r.stdout).data.messages as {
        author: string;
        replyTo: string | null;
        text: string;
      }[];
      const author: string = `agent:${String(agent.id)}`;
      const answer: { replyTo: string | null } | undefined = items.find((m) => m.author === author);
      assert.ok(answer, `the agent answered in the DM: ${r.stdout}`);
      assert.equal(answer.replyTo, posted?.message.id);
    }
  }
  assert.ok(posted, 'the walkthrough posts a message');
  assert.ok(stopped, 'the walkthrough stops the daemon it started');
});
