import { isIP } from 'node:net';

export class ListenError extends Error {
  override name = 'ListenError';
}

/** `HOST:PORT` (IPv6 as `[::1]:PORT`); non-loopback hosts need an explicit opt-in. */
export function parseListen(value: string, allowRemote: boolean): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  if (!m) throw new ListenError(`--listen must be HOST:PORT, got "${value}"`);
  const host = (m[1] ?? m[2])!;
  const port = Number(m[3]);
  if (port > 65535) throw new ListenError(`port ${port} is out of range`);
  if (!allowRemote && !isLoopback(host)) {
    throw new ListenError(
      `refusing to listen on non-loopback host "${host}" without --allow-remote`,
    );
  }
  return { host, port };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
