import type { ExtensionStore } from '../extensions/store.js';
import { pinCatalog } from '../auth/pinned-catalog.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

/**
 * Extension management (catalog/operator/extensions.ts): install a definition
 * (stored as sent, so its digest is the digest of the file the operator
 * installed), list, remove; and the catalog a runtime started now would pin
 * (built-ins and installed extensions), the body of the runtime's own
 * `GET {base}/catalog`, so operator help renders extensions the same way.
 */
export function extensionOperatorHandlers(
  extensions: ExtensionStore,
): Pick<
  OperatorHandlers,
  'extensions.install' | 'extensions.list' | 'extensions.remove' | 'catalog.get'
> {
  return {
    'extensions.install': ({ body }) => ({ extension: extensions.install(body.definition) }),
    'extensions.list': () => ({
      extensions: extensions.list(),
      catalogVersion: extensions.current().catalogVersion,
    }),
    'extensions.remove': ({ params }) => extensions.remove(params.name),
    // Serialized once per catalog: the same bytes a runtime's own catalog route sends.
    'catalog.get': () =>
      new Response(pinCatalog(extensions.current()).body, {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
  };
}
