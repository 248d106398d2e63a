import { Agent } from 'node:http';
import {
  OperatorCallError,
  operatorClient,
  type OperatorClient,
  type OperatorEvent,
  type OperatorEvents,
} from '../lib/operator-client.js';
import { type DaemonTarget, openHttpStream, sendHttp } from './daemon-http.js';

/**
 * A long-lived connection to the running daemon, as any app has it: the
 * operator event stream (`events.open`) and calls to the operator API, both
 * through the one client (lib/operator-client.ts); calls share one keep-alive
 * agent. `serve --stdio` is a provider of client tools on it, `daemon logs
 * --follow` and `watch` observers. It never opens the store.
 */

export type LinkEvent = OperatorEvent<'events.open'>;

class LinkError extends Error {
  override name = 'LinkError';
}

export class DaemonLink {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private stream: OperatorEvents<'events.open'> | null = null;
  private closedByUs = false;
  clientId = '';
  /** The secret of this stream's hello: sent with every call, it proves the calls come from this session. */
  private clientKey = '';
  /** The operator API through this link (every call carries the client key once the hello gave one). */
  readonly client: OperatorClient;

  constructor(
    private readonly url: string,
    token: string,
  ) {
    const target: DaemonTarget = {
      url,
      token,
      headers: (): Record<string, string> =>
        this.clientKey ? { 'agentteam-client-key': this.clientKey } : {},
    };
    // A request that never got an answer says where it went.
    const unanswered = (err: NodeJS.ErrnoException) => {
      throw err.name === 'AbortError'
        ? err
        : new LinkError(`the daemon at ${this.url} does not answer (${err.code ?? err.message})`);
    };
    this.client = operatorClient(
      (req) => sendHttp({ ...target, agent: this.agent }, req).catch(unanswered),
      (req, signal) => openHttpStream(target, req, signal).catch(unanswered),
    );
  }

  /**
   * Opens the event stream: a provider's, an observer's that also carries the daemon's diagnostics
   * (`daemon.log`, for `daemon logs --follow`), or a plain observer's (`agentteam watch`); resolves with
   * the client id of its hello.
   * `onEvent` sees every later event; `onEnd` runs once when the stream ends without close().
   */
  open(
    onEvent: (e: LinkEvent) => void,
    onEnd: (why: string) => void,
    mode: 'provider' | 'logs' | 'watch' = 'provider',
  ): Promise<string> {
    const stream = this.client.events('events.open', {
      query:
        mode === 'provider'
          ? { client_tools: '1' }
          : { client_tools: '0', ...(mode === 'logs' ? { logs: '1' } : {}) },
    });
    this.stream = stream;
    return new Promise((resolve, reject) => {
      let hello = false;
      const end = (why: string) => {
        if (!hello) reject(new LinkError(why));
        else if (!this.closedByUs) onEnd(why);
      };
      void (async () => {
        try {
          for await (const e of stream) {
            if (hello) onEvent(e);
            else if (e.type === 'hello') {
              hello = true;
              this.clientId = String(e.data.client_id ?? '');
              this.clientKey = String(e.data.client_key ?? '');
              resolve(this.clientId);
            }
          }
          end(this.closedByUs ? 'the event stream closed' : 'the daemon closed the event stream');
        } catch (err) {
          end(
            err instanceof OperatorCallError
              ? `the daemon refused the event stream (HTTP ${err.status})`
              : err instanceof LinkError && !hello
                ? err.message
                : 'the event stream failed',
          );
        }
      })();
    });
  }

  /** Closes the event stream (the daemon withdraws this client's tools) and idle sockets. */
  close(): void {
    this.closedByUs = true;
    this.stream?.close();
    this.agent.destroy();
  }
}
