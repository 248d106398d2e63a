import { catalogViewSchema } from '../view.js';
import { operatorRoute } from './route.js';

/** Extensions: install, list and remove definition files; the catalog a runtime started now would pin. */

const extensionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'digest', 'upstream', 'actions'],
  properties: {
    name: { type: 'string' },
    /** `sha256:<hex>` of the definition file's bytes as installed. */
    digest: { type: 'string' },
    upstream: { type: 'string' },
    actions: { type: 'array', items: { type: 'string' } },
    catalogVersion: { type: 'string' },
  },
} as const;

export const extensionsInstall = operatorRoute({
  name: 'extensions.install',
  method: 'POST',
  path: '/api/v1/extensions',
  summary: 'Installs an extension definition, stored as sent (its digest is the file digest).',
  permission: 'operator',
  invalid: 'invalid_request',
  status: 201,
  body: {
    type: 'object',
    required: ['definition'],
    properties: { definition: { type: 'string' } },
  },
  output: { type: 'object', required: ['extension'], properties: { extension: extensionSchema } },
});

export const extensionsList = operatorRoute({
  name: 'extensions.list',
  method: 'GET',
  path: '/api/v1/extensions',
  summary: 'The installed extensions and the catalog version they make.',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['extensions', 'catalogVersion'],
    properties: {
      extensions: { type: 'array', items: extensionSchema },
      catalogVersion: { type: 'string' },
    },
  },
});

export const extensionsRemove = operatorRoute({
  name: 'extensions.remove',
  method: 'DELETE',
  path: '/api/v1/extensions/:name',
  summary: 'Removes an installed extension.',
  permission: 'operator',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string' } },
  },
  output: {
    type: 'object',
    required: ['removed', 'catalogVersion'],
    properties: { removed: { type: 'string' }, catalogVersion: { type: 'string' } },
  },
});

export const catalogGet = operatorRoute({
  name: 'catalog.get',
  method: 'GET',
  path: '/api/v1/catalog',
  summary:
    "The catalog a runtime started now would pin: the body of a runtime's own GET {base}/catalog.",
  permission: 'operator',
  output: catalogViewSchema,
});
