import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { resolveHome } from '../../lib/home.js';
import { NoDaemonError, readDaemonInfo, readOperatorToken } from '../daemon-client.js';
import { DaemonLink } from '../daemon-link.js';
import { StdioSession } from '../serve/session.js';
import { LineReader, errorFrame, writeFrame } from '../serve/wire.js';
import { STDIO_WIRE } from '../../catalog/stdio-tools.js';
import { refuse } from '../refusal.js';

/** How long the child waits for stdout to drain when it ends. */
const FLUSH_MS = 2000;

/**
 * `agentteam serve --stdio [--server S]`: the app that spawned this process
 * registers its tools at initialize and serves agents' calls over
 * stdin/stdout (one JSON-RPC frame per line). The child talks to the running
 * daemon as any app does; it ends when stdin closes, which withdraws its
 * tools. Diagnostics go to stderr only: stdout carries frames and nothing else.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  if (opts.stdio !== true) {
    return refuse('serve', 'usage', 'serve needs --stdio (the only transport)');
  }
  const home = resolveHome();
  const out = openStdout();
  const serverId = typeof opts.server === 'string' ? opts.server : null;
  let status = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let ending = false;
  const end = (code: number, message?: string) => {
    if (ending) return;
    ending = true;
    status = code;
    if (message) process.stderr.write(`agentteam serve: ${message}\n`);
    session.close();
    process.stdin.destroy();
    finish();
  };

  const session = new StdioSession({
    out: (frame) => writeFrame(out, frame),
    connect() {
      const info = readDaemonInfo(home);
      if (!info)
        throw new NoDaemonError(
          `no daemon is running for ${home}; start one with \`agentteam daemon start\``,
        );
      return new DaemonLink(info.url, readOperatorToken(home));
    },
    fatal: (message) => end(1, message),
    serverId,
  });

  // Frames are handled one after another in arrival order; a slow daemon call does not reorder them.
  let chain = Promise.resolve();
  const reader = new LineReader(
    (line) => {
      chain = chain.then(() => session.frame(line)).catch(() => undefined);
    },
    () => {
      // An oversized input frame closes the connection, as the base protocol does.
      writeFrame(
        out,
        errorFrame(
          null,
          'body_too_large',
          `an input frame is longer than ${STDIO_WIRE.inputFrameBytes} bytes; closing`,
        ),
      );
      end(1, 'an input frame exceeded the size bound');
    },
  );
  process.stdin.on('data', (chunk: Buffer) => reader.push(chunk));
  // stdin closed: frames already read are answered first, within the flush bound (a daemon that
  // does not answer cannot keep the child alive; ending closes whatever link is still opening).
  process.stdin.on('end', () => {
    const t = setTimeout(() => end(status), FLUSH_MS);
    t.unref();
    void chain.then(() => {
      clearTimeout(t);
      end(status);
    });
  });
  process.stdin.on('error', () => end(1, 'stdin failed'));
  out.on('error', () => end(1, 'stdout closed'));

  await done;
  await chain;
  // Let queued frames reach the app, within a bound.
  await new Promise<void>((resolve) => {
    if (out.writableLength === 0) return resolve();
    const t = setTimeout(resolve, FLUSH_MS);
    t.unref();
    out.once('drain', () => {
      clearTimeout(t);
      resolve();
    });
  });
  // What the app did not read within the bound is dropped, so the process can end.
  if (out instanceof Socket) out.destroy();
  return status;
}

/**
 * stdout as a socket of its own when it is a pipe (as an app spawns it):
 * writes never block the child, the unread backlog is measurable, and
 * destroying it really lets go of the descriptor (process.stdout cannot be
 * closed). Anything else (a file) keeps process.stdout.
 */
function openStdout(): Writable {
  try {
    return new Socket({ fd: 1, readable: false, writable: true });
  } catch {
    return process.stdout;
  }
}
