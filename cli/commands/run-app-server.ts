import { request } from 'node:http';
import { visible, visibleBlock } from '../terminal-text.js';

/**
 * The `run` side of `--runtime codex-app-server`: the daemon spawns and
 * drives `codex app-server` itself (it must see every tool call with
 * Codex's own thread id); `run` hands it the command, the environment the
 * runtime would have had, the working directory and the prompt, then prints
 * the run as it streams back: agent messages on stdout (a child thread's
 * prefixed with its id), threads and tool decisions on stderr.
 * Resolves with the exit status: 0 when the primary turn completed.
 * Everything printed comes from the runtime and its agents: one-line fields
 * go through visible(), message text through visibleBlock() (a child
 * thread's every line carries its id), so no escape sequence reaches the
 * terminal and no line passes for another thread's or for ours.
 */
export function driveAppServer(
  url: string,
  token: string,
  authorizationId: string,
  body: { command: string[]; env: Record<string, string>; cwd: string; prompt: string },
): Promise<number> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    const req = request(
      new URL(`/api/v1/runtimes/${encodeURIComponent(authorizationId)}/codex-app-server`, url),
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
    );
    req.on('error', (err) => {
      process.stderr.write(`agentteam: the app-server run was cut off: ${err.message}\n`);
      resolve(1);
    });
    req.on('response', (res) => {
      let buf = '';
      let primary: string | null = null;
      let status: number | null = null;
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        res.on('data', (c: string) => (buf += c));
        res.on('end', () => {
          let message = buf;
          try {
            const e = (JSON.parse(buf) as { error: { code: string; message: string } }).error;
            message = `${e.code}: ${e.message}`;
          } catch {
            // the raw text
          }
          process.stderr.write(
            `agentteam: the daemon refused the app-server run: ${visible(message)}\n`,
          );
          resolve(1);
        });
        return;
      }
      const line = (text: string) => {
        let e: Record<string, unknown>;
        try {
          e = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return;
        }
        switch (e.event) {
          case 'thread':
            if (e.role === 'primary' && typeof e.threadId === 'string') primary = e.threadId;
            process.stderr.write(
              `agentteam: ${visible(String(e.role))} thread ${visible(String(e.threadId))}${e.parentId ? ` (spawned by ${visible(String(e.parentId))})` : ''}\n`,
            );
            break;
          case 'message':
            if (e.threadId === primary)
              process.stdout.write(`${visibleBlock(String(e.text), '')}\n`);
            else {
              const tag = `[${visible(String(e.threadId))}] `;
              process.stdout.write(`${tag}${visibleBlock(String(e.text), tag)}\n`);
            }
            break;
          case 'tool':
            process.stderr.write(
              `agentteam: ${visible(String(e.tool))} from the ${visible(String(e.role))} thread ${visible(String(e.threadId))}: ${visible(String(e.decision))}${e.isError ? ' (error result)' : ''}\n`,
            );
            break;
          case 'declined':
            process.stderr.write(
              `agentteam: declined ${visible(String(e.method))} (nobody to ask in an app-server run)\n`,
            );
            break;
          case 'warning':
            process.stderr.write(`agentteam: codex: ${visible(String(e.message))}\n`);
            break;
          case 'done':
            if (e.error)
              process.stderr.write(
                `agentteam: the app-server run ended ${visible(String(e.status))}: ${visible(String(e.error))}\n`,
              );
            status = e.status === 'completed' ? 0 : 1;
            break;
        }
      };
      res.on('data', (c: string) => {
        buf += c;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          line(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      });
      res.on('end', () => resolve(status ?? 1));
      res.on('error', () => resolve(status ?? 1));
    });
    req.end(payload);
  });
}
