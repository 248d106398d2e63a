import { randomBytes } from 'node:crypto';

/**
 * Where the console answers. Browsers keep cookies per host name, not per
 * port, so a session cookie set on 127.0.0.1 would go to every server on
 * 127.0.0.1. The console therefore lives under a name of its own,
 * `agentteam-<128 random bits>.localhost:PORT`: Chromium and Firefox resolve
 * every `*.localhost` name to loopback without asking DNS, and the browser
 * sends the cookie only to that exact name. The name is drawn at each start
 * and handed out only with a sign-in code (operator token), so a server on
 * another port cannot guess it to have the browser bring the cookie along.
 */
export function consoleHostName(): string {
  return `agentteam-${randomBytes(16).toString('hex')}.localhost`;
}

/** The paths the console serves: `/console` and everything under it. */
export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}
