import type { Catalog } from '../../catalog/index.js';

/** An immutable catalog snapshot an authorization is pinned to, with its response body serialized once. */
export interface PinnedCatalog {
  readonly catalog: Catalog;
  readonly body: string;
}

const pinned = new WeakMap<Catalog, PinnedCatalog>();

/** Serializes a catalog's descriptors once per catalog object; every authorization pinned to it shares the bytes. */
export function pinCatalog(catalog: Catalog): PinnedCatalog {
  let p = pinned.get(catalog);
  if (!p) {
    const actions = [...catalog.entries.values()].map(({ descriptor: d }) => ({
      domain: d.domain,
      action: d.action,
      summary: d.summary,
      help: d.help,
      risk: d.risk,
      example: d.example,
      inputSchema: d.input,
      outputSchema: d.output,
    }));
    p = { catalog, body: JSON.stringify({ ok: true, data: { domains: catalog.domains, actions } }) };
    pinned.set(catalog, p);
  }
  return p;
}
