import { startDaemon } from '../devkit/daemon.js';
import {
  checkClaude,
  checkConformance,
  checkInspector,
  checkMcpRemote,
  checkOpencode,
  checkPython,
} from './clients.js';
import { checkCodex } from './codex.js';
import type { CheckContext, CheckResult } from './run-under.js';
import { checkCodexAppServer } from './codex-app-server.js';
import { checkClaudeTurns, checkCodexTurns, checkOpencodeTurns } from './turns.js';
import { checkClaudeApproval } from './claude-approval.js';
import { checkCodexApprovals } from './approvals.js';
import { checkCodexStdioTurns } from './stdio-turns.js';
import { ensureNpm, ensurePython, NPM_CLIENTS, PYTHON_SDK, type Installed } from './install.js';

/**
 * `npm run test:interop`: installs the pinned real MCP clients into
 * .interop-cache/ (once), starts a daemon on loopback and runs every client
 * against it across token rotations. Prints one line per client (PASS with
 * its version, SKIP with the reason, FAIL with what went wrong); exits 1 if
 * any client failed. Not part of `npm test`: it downloads clients and takes
 * minutes.
 */
type Row = {
  client: string;
  status: 'PASS' | 'SKIP' | 'FAIL';
  version: string;
  detail: string;
  seconds: number;
};

const only = new Set(process.argv.slice(2));
/** `claude` also runs `claude-turns` and `claude-approval`, `codex` the other Codex cases, `opencode` `opencode-turns`, `turns` every turn case. */
const wanted = (id: string) =>
  only.size === 0 ||
  only.has(id) ||
  only.has(id.split('-')[0]!) ||
  (only.has('turns') && id.endsWith('-turns'));

interface Plan {
  id: string;
  install: () => Promise<Installed>;
  pinned: string;
  run: (ctx: CheckContext, pinned: string) => Promise<CheckResult>;
}

const npm = (id: string) => NPM_CLIENTS.find((c) => c.id === id)!;
const PLANS: Plan[] = [
  {
    id: 'python-sdk',
    install: ensurePython,
    pinned: `${PYTHON_SDK.pkg} ${PYTHON_SDK.version}`,
    run: (ctx) => checkPython(ctx),
  },
  {
    id: 'inspector',
    install: () => ensureNpm(npm('inspector')),
    pinned: npm('inspector').version,
    run: checkInspector,
  },
  {
    id: 'claude',
    install: () => ensureNpm(npm('claude')),
    pinned: npm('claude').version,
    run: (ctx) => checkClaude(ctx),
  },
  {
    id: 'codex',
    install: () => ensureNpm(npm('codex')),
    pinned: npm('codex').version,
    run: (ctx) => checkCodex(ctx),
  },
  // The same pinned Codex, driven by the daemon as an app server; `-- codex` runs both.
  {
    id: 'codex-app-server',
    install: () => ensureNpm(npm('codex')),
    pinned: npm('codex').version,
    run: (ctx) => checkCodexAppServer(ctx),
  },
  // Delivered turns: the daemon runs the same pinned clients for a person's message.
  {
    id: 'claude-turns',
    install: () => ensureNpm(npm('claude')),
    pinned: npm('claude').version,
    run: (ctx) => checkClaudeTurns(ctx),
  },
  // Its permission prompt in the approval inbox, decided from the CLI.
  {
    id: 'claude-approval',
    install: () => ensureNpm(npm('claude')),
    pinned: npm('claude').version,
    run: (ctx) => checkClaudeApproval(ctx),
  },
  {
    id: 'codex-turns',
    install: () => ensureNpm(npm('codex')),
    pinned: npm('codex').version,
    run: (ctx) => checkCodexTurns(ctx),
  },
  // An app's `serve --stdio` session whose turn the daemon runs on the same pinned Codex.
  {
    id: 'codex-stdio-turns',
    install: () => ensureNpm(npm('codex')),
    pinned: npm('codex').version,
    run: (ctx) => checkCodexStdioTurns(ctx),
  },
  // Codex's own command approvals in a delivered turn, decided in agentteam's inbox.
  {
    id: 'codex-approvals',
    install: () => ensureNpm(npm('codex')),
    pinned: npm('codex').version,
    run: (ctx) => checkCodexApprovals(ctx),
  },
  {
    id: 'opencode',
    install: () => ensureNpm(npm('opencode')),
    pinned: npm('opencode').version,
    run: (ctx) => checkOpencode(ctx),
  },
  {
    id: 'opencode-turns',
    install: () => ensureNpm(npm('opencode')),
    pinned: npm('opencode').version,
    run: (ctx) => checkOpencodeTurns(ctx),
  },
  {
    id: 'mcp-remote',
    install: () => ensureNpm(npm('mcp-remote')),
    pinned: npm('mcp-remote').version,
    run: checkMcpRemote,
  },
  {
    id: 'conformance',
    install: () => ensureNpm(npm('conformance')),
    pinned: npm('conformance').version,
    run: checkConformance,
  },
];

const rows: Row[] = [];
const daemon = await startDaemon();
try {
  for (const plan of PLANS.filter((p) => wanted(p.id))) {
    const t0 = Date.now();
    const seconds = () => Math.round((Date.now() - t0) / 100) / 10;
    process.stdout.write(`[interop] ${plan.id} (${plan.pinned}) ...\n`);
    const installed = await plan.install();
    if (!installed.ok) {
      rows.push({
        client: plan.id,
        status: 'SKIP',
        version: plan.pinned,
        detail: installed.reason,
        seconds: seconds(),
      });
      continue;
    }
    const ctx: CheckContext =
      plan.id === 'python-sdk'
        ? { daemon, binDir: '', pythonPath: installed.dir }
        : {
            daemon,
            binDir: installed.dir,
            ...(installed.nodeDir ? { nodeDir: installed.nodeDir } : {}),
          };
    try {
      const r = await plan.run(ctx, plan.pinned);
      const version = installed.note ? `${r.version} ${installed.note}` : r.version;
      rows.push({ client: plan.id, status: 'PASS', version, detail: r.detail, seconds: seconds() });
    } catch (err) {
      rows.push({
        client: plan.id,
        status: 'FAIL',
        version: plan.pinned,
        detail: (err as Error).message,
        seconds: seconds(),
      });
    }
    const last = rows[rows.length - 1]!;
    process.stdout.write(`[interop] ${last.status} ${plan.id} in ${last.seconds} s\n`);
  }
} finally {
  await daemon.close();
}

process.stdout.write(`\nagentteam interop (Node ${process.version})\n`);
for (const r of rows)
  process.stdout.write(
    `${r.status}  ${r.client.padEnd(11)} ${r.version}  [${r.seconds} s]\n      ${r.detail.split('\n').join('\n      ')}\n`,
  );
process.exitCode = rows.some((r) => r.status === 'FAIL') ? 1 : 0;
