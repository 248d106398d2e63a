import { strict as assert } from 'node:assert';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { sharedBoundary } from '../daemon/mcp/boundary.js';
import { messageToolHandlers } from '../daemon/mcp/message-tools.js';
import { createToolHost } from '../daemon/mcp/tool-host.js';
import { MessageStore } from '../daemon/store/messages.js';
import type { ToolHost } from '../daemon/tools/contracts.js';
import { ToolRegistry } from '../daemon/tools/registry.js';
import { systemClock } from '../lib/clock.js';
import { gateWith } from './gate.js';
import type { Field, FieldStore } from './roundtrip-field-store.js';
import { decode, jsonText, ruleOf, sameText, toolProp } from './roundtrip.js';

/** Message content and reaction emoji, through the MCP tool host as an agent sends them. */
export function messageFields({ sql, now, rows, column }: FieldStore): Field[] {
  const fields: Field[] = [];
  const messages = new MessageStore(sql, { ...systemClock, now });
  const host: ToolHost = createToolHost(
    new ToolRegistry(),
    MCP_TOOLS.filter((t) => t.name.startsWith('message_')),
    messageToolHandlers(messages),
    sharedBoundary(gateWith()),
  );
  const ctx = {
    principal: {
      authorizationId: 'auth',
      serverId: 's1',
      agentId: 'a1',
      sessionId: null,
      runId: null,
      workdir: null,
      primaryThreadId: null,
      turn: null,
    },
    threadId: null,
    signal: new AbortController().signal,
  };
  let seq = 0;
  const tool = async (name: string, text: string) => {
    const out = await host.call(name, decode(text), ctx);
    assert.ok(out.ok);
    return JSON.parse(out.resultJson) as {
      isError: boolean;
      structuredContent?: any;
      content: { text: string }[];
    };
  };
  const toolRefused = (r: { content: { text: string }[] }, path: string) => {
    const env = JSON.parse(r.content[0]!.text) as {
      error: { code: string; details: { path: string }[] };
    };
    assert.equal(env.error.code, 'validation_failed');
    assert.ok(
      env.error.details.some((x) => x.path === path),
      JSON.stringify(env.error),
    );
  };
  fields.push({
    name: 'message_send content',
    path: '/content',
    rule: ruleOf(toolProp('message_send', 'content')),
    count: () => rows('messages'),
    async run(s, escaped) {
      const target = `channel:c${++seq}`;
      const r = await tool('message_send', jsonText({ target, content: s }, escaped));
      if (r.isError) {
        toolRefused(r, '/content');
        return false;
      }
      const stored = (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!;
      sameText(stored.content, s, 'message content');
      sameText(column('messages', 'content', stored.id), s, 'messages.content');
      return true;
    },
  });
  fields.push({
    name: 'message_react emoji',
    path: '/emoji',
    rule: ruleOf(toolProp('message_react', 'emoji')),
    // Each case reacts to a fresh message; a refusal must leave that message without reactions.
    count: () => 0,
    async run(s, escaped) {
      const target = `channel:r${++seq}`;
      const m = await messages.send({ serverId: 's1', target, author: 'agent:a1', content: 'x' });
      const r = await tool('message_react', jsonText({ messageId: m.id, emoji: s }, escaped));
      if (r.isError) {
        toolRefused(r, '/emoji');
        assert.deepEqual(
          (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!.reactions,
          [],
        );
        return false;
      }
      sameText(
        (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!.reactions[0]!
          .emoji,
        s,
        'emoji',
      );
      return true;
    },
  });
  return fields;
}
