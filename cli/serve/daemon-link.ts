import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';

/**
 * The stdio child's connection to the running daemon, as any app has it: the
 * operator event stream (GET /api/v1/events?client_tools=1, server-sent
 * events read here without a library) and JSON calls to /api/v1 on one
 * keep-alive agent. It never opens the store.
 */

export interface LinkEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: {
    ok?: boolean;
    data?: unknown;
    error?: { code?: string; message?: string };
  } | null;
}

class LinkError extends Error {
  override name = 'LinkError';
}

export class DaemonLink {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private stream: ClientRequest | null = null;
  private closedByUs = false;
  clientId = '';
  /** The secret of this stream's hello: sent with every call, it proves the calls come from this session. */
  private clientKey = '';

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  /**
   * Opens the event stream: a provider's, or (`provider` false) an observer's that also carries the daemon's
   * diagnostics (`daemon.log`); resolves with the client id of its hello.
   * `onEvent` sees every later frame; `onEnd` runs once when the stream ends without close().
   */
  open(
    onEvent: (e: LinkEvent) => void,
    onEnd: (why: string) => void,
    provider = true,
  ): Promise<string> {
    return new Promise((resolve, reject) => {
      let hello = false;
      let ended = false;
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        if (!hello) reject(new LinkError(why));
        else if (!this.closedByUs) onEnd(why);
      };
      const req = request(
        new URL(
          provider ? '/api/v1/events?client_tools=1' : '/api/v1/events?client_tools=0&logs=1',
          this.url,
        ),
        {
          headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' },
        },
        (res: IncomingMessage) => {
          if (res.statusCode !== 200) {
            res.resume();
            return end(`the daemon refused the event stream (HTTP ${res.statusCode})`);
          }
          res.setEncoding('utf8');
          let buf = '';
          res.on('data', (chunk: string) => {
            buf += chunk;
            for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
              const block = buf.slice(0, cut);
              buf = buf.slice(cut + 2);
              const data = block
                .split('\n')
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n');
              if (!data) continue;
              let frame: { type?: string; data?: Record<string, unknown> };
              try {
                frame = JSON.parse(data) as typeof frame;
              } catch {
                continue;
              }
              if (frame.type === 'hello' && !hello) {
                hello = true;
                this.clientId = String(frame.data?.client_id ?? '');
                this.clientKey = String(frame.data?.client_key ?? '');
                resolve(this.clientId);
              } else if (hello && typeof frame.type === 'string') {
                onEvent({ type: frame.type, data: frame.data ?? {} });
              }
            }
          });
          res.on('end', () => end('the daemon closed the event stream'));
          res.on('error', () => end('the event stream failed'));
          res.on('close', () => end('the event stream closed'));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) =>
        end(`the daemon at ${this.url} does not answer (${err.code ?? err.message})`),
      );
      req.end();
      this.stream = req;
    });
  }

  /** One JSON call to the operator API. */
  call(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            ...(this.clientKey ? { 'agentteam-client-key': this.clientKey } : {}),
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let json: ApiAnswer['body'] = null;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ApiAnswer['body'];
            } catch {
              // not JSON: status alone speaks
            }
            resolve({ status: res.statusCode ?? 0, body: json });
          });
          res.on('error', (e) => reject(new LinkError(`the daemon call failed: ${e.message}`)));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(
          new LinkError(`the daemon at ${this.url} does not answer (${err.code ?? err.message})`),
        ),
      );
      req.end(payload);
    });
  }

  /** Closes the event stream (the daemon withdraws this client's tools) and idle sockets. */
  close(): void {
    this.closedByUs = true;
    this.stream?.destroy();
    this.agent.destroy();
  }
}
