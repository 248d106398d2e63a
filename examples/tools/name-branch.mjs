#!/usr/bin/env node
// A declared tool that asks: the call's arguments arrive as JSON on stdin.
// Without `answered` it asks the person; with it, it reports their choice.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const args = JSON.parse(input || '{}');
const slug = String(args.topic ?? 'work').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'work';
const suggestion = `feat/${slug}`;
const out = args.answered === undefined
  ? {
      said: `Asked the person which branch name to use for "${args.topic}".`,
      shown: `An agent wants to start "${args.topic}". Suggested branch: ${suggestion}`,
      ask: `Which branch name should be used for "${args.topic}"? (suggested: ${suggestion})`,
    }
  : {
      said: `Use the branch name: ${String(args.answered).trim()}`,
      shown: `Branch name agreed: ${String(args.answered).trim()}`,
    };
process.stdout.write(JSON.stringify(out) + '\n');
