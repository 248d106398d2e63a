import type { Catalog } from '../../catalog/index.js';
import { catalogView } from '../../catalog/view.js';

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
    p = { catalog, body: JSON.stringify({ ok: true, data: catalogView(catalog) }) };
    pinned.set(catalog, p);
  }
  return p;
}
