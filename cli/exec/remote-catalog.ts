import { request } from 'node:http';
import type { CatalogView, CatalogViewAction } from '../../catalog/view.js';
import { typeSummary, type ActionHelp, type DomainHelp } from '../../catalog/help.js';
import type { SchemaObject } from '../../catalog/descriptor.js';
import { readCredentials } from './call.js';

/**
 * Extension domains are not in the build's help files: they exist only in the
 * catalog the runtime's authorization pinned. For a name the build does not
 * know, the CLI asks `GET {base}/catalog` (one request) and renders help and
 * schemas from it with the same renderers. Outside a runtime (an operator at
 * a shell) it asks the running daemon's `GET /api/v1/catalog` with the
 * operator token instead: what a runtime started now would pin.
 */
export async function remoteDomain(domain: string): Promise<DomainHelp | undefined> {
  const view = await fetchCatalog();
  if (!view || !Object.hasOwn(view.domains, domain)) return undefined;
  return {
    domain,
    line: view.domains[domain]!,
    actions: view.actions.filter((a) => a.domain === domain).map(helpOf),
  };
}

/** The pinned catalog's domains that are not built in (extensions), with their actions. */
export async function remoteExtensionDomains(builtin: ReadonlySet<string>): Promise<DomainHelp[]> {
  const view = await fetchCatalog();
  if (!view) return [];
  return Object.entries(view.domains)
    .filter(([d]) => !builtin.has(d))
    .map(([domain, line]) => ({
      domain,
      line,
      actions: view.actions.filter((a) => a.domain === domain).map(helpOf),
    }));
}

export async function remoteAction(
  domain: string,
  action: string,
): Promise<CatalogViewAction | undefined> {
  return (await fetchCatalog())?.actions.find((a) => a.domain === domain && a.action === action);
}

export function helpOf(a: CatalogViewAction): ActionHelp {
  const required = (a.inputSchema.required ?? []) as readonly string[];
  const props = (a.inputSchema.properties ?? {}) as Record<string, SchemaObject>;
  return {
    action: a.action,
    summary: a.summary,
    help: a.help,
    example: a.example,
    risk: a.risk,
    fields: Object.entries(props).map(([name, s]) => ({
      name,
      type: typeSummary(s),
      required: required.includes(name),
    })),
    acceptsEmpty: required.length === 0,
  };
}

let cached: Promise<CatalogView | undefined> | undefined;

/** Whose catalog help shows: this runtime's pinned one, or (outside a runtime) the daemon's current one. */
export function catalogSource(): 'runtime' | 'daemon' {
  return process.env.AGENTTEAM_EXEC_BASE_URL ? 'runtime' : 'daemon';
}

/** The operator's view: the daemon of this home, if one runs and its operator token is readable. */
async function operatorCatalogRequest(): Promise<{ url: string; token: string } | undefined> {
  const [{ resolveHome }, { readDaemonInfo, readOperatorToken }] = await Promise.all([
    import('../../lib/home.js'),
    import('../daemon-client.js'),
  ]);
  const home = resolveHome();
  const info = readDaemonInfo(home);
  if (!info) return undefined;
  try {
    return { url: `${info.url}/api/v1/catalog`, token: readOperatorToken(home) };
  } catch {
    return undefined;
  }
}

function fetchCatalog(): Promise<CatalogView | undefined> {
  cached ??= (async () => {
    let target: { url: string; token: string } | undefined;
    if (catalogSource() === 'runtime') {
      const creds = readCredentials(process.env);
      target = creds.ok ? { url: `${creds.baseUrl}/catalog`, token: creds.token } : undefined;
    } else target = await operatorCatalogRequest();
    if (!target) return undefined;
    const text = await get(target.url, target.token).catch(() => undefined);
    try {
      const env =
        text === undefined ? undefined : (JSON.parse(text) as { ok?: boolean; data?: CatalogView });
      return env?.ok === true ? env.data : undefined;
    } catch {
      return undefined;
    }
  })();
  return cached;
}

function get(url: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        agent: false,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
