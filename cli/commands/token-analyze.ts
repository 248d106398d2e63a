import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { resolveHome } from '../../lib/home.js';
import { isRuntimeKind } from '../../catalog/runtimes.js';
import { daemonOperator, readDaemonInfo } from '../daemon-client.js';
import { buildReport, renderReport, type SurfaceInput } from '../../lib/token-report.js';
import { countInPieces } from '../token/pieces.js';
import { jsonText } from '../json-text.js';
import { visibleBlock } from '../terminal-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { parseSession, SessionError, type ParsedSession } from '../token/session.js';

const SURFACE_PATH = '/api/internal/token-analysis/surface';
const TOKENIZER = 'o200k_base (gpt-tokenizer)';

function getJson(url: URL, token: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          });
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `agentteam token analyze [--runtime R] [--session FILE] [--json]`: what the
 * agentteam tool surface and tool results cost a runtime's context. The
 * daemon hands out the exact texts under a token-analysis credential (a
 * scope no runtime route accepts); tokens are counted here, so the
 * tokenizer's tables are loaded by this command only.
 */
export async function main(opts: Record<string, unknown>): Promise<number> {
  const runtime = typeof opts.runtime === 'string' ? opts.runtime : 'generic';
  if (!isRuntimeKind(runtime)) {
    return refuse('token analyze', 'usage', `unknown runtime "${runtime}"`);
  }
  let parsed: ParsedSession | null = null;
  const file = typeof opts.session === 'string' ? opts.session : null;
  if (file !== null) {
    let sessionText: string;
    try {
      sessionText = readFileSync(file, 'utf8');
    } catch (err) {
      return refuse(
        'token analyze',
        'usage',
        `cannot read the session file ${file}: ${(err as Error).message}`,
      );
    }
    try {
      parsed = parseSession(sessionText);
    } catch (err) {
      if (!(err instanceof SessionError)) throw err;
      return refuse('token analyze', 'usage', `the session file ${file}: ${err.message}`);
    }
  }
  const home = resolveHome();
  const info = readDaemonInfo(home);
  if (!info) return noDaemon('token analyze', home);
  const cred = await daemonOperator(home).send('analysis.credential', {});
  const token = cred.envelope?.ok ? cred.envelope.data.token : undefined;
  if (cred.status !== 201 || typeof token !== 'string') {
    return refuse(
      'token analyze',
      'upstream_error',
      `the daemon refused a token-analysis credential (HTTP ${cred.status})`,
    );
  }
  const url = new URL(SURFACE_PATH, info.url);
  url.searchParams.set('runtime', runtime);
  const res = await getJson(url, token);
  const data = (res.json as { ok?: boolean; data?: SurfaceInput }).data;
  if (res.status !== 200 || !data) {
    return refuse(
      'token analyze',
      'upstream_error',
      `the daemon did not return the tool surface (HTTP ${res.status})`,
    );
  }
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  // Transcripts may quote special-token text; it is counted as the plain text it is.
  // Bounded pieces keep the count linear in the text's length (pieces.ts).
  const none = new Set<string>();
  const count = (text: string) =>
    countInPieces(text, (piece) => countTokens(piece, { disallowedSpecial: none }));
  const report = buildReport(
    data,
    count,
    TOKENIZER,
    file !== null && parsed !== null ? { file, parsed } : undefined,
  );
  // Tool names come from apps too: the tables keep their lines, nothing else that drives a terminal.
  process.stdout.write(
    opts.json === true ? `${jsonText(report)}\n` : visibleBlock(renderReport(report), ''),
  );
  return 0;
}
