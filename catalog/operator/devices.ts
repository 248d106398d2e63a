import { operatorRoute } from './route.js';

/**
 * Paired devices: a person's app (a phone, a desktop app) that holds a
 * device token instead of the operator token. The operator asks for a
 * one-time code, the app exchanges it for its token, and the operator lists
 * and revokes devices. What a device token may call is the allow list in
 * device-scope.ts.
 */

/** A device's id as the daemon mints it. */
export const DEVICE_ID_PATTERN = '^dev_[0-9a-z]{16}$';
/** A pairing code as printed: ten characters of Crockford base32 in two groups (case and the dash are forgiven). */
const PAIRING_CODE_PATTERN = '^[0-9A-Za-z]{5}-?[0-9A-Za-z]{5}$';
/** The longest device name (characters). */
export const DEVICE_NAME_MAX = 64;

const device = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'createdAt', 'lastUsedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    createdAt: { type: 'string' },
    lastUsedAt: { type: ['string', 'null'] },
  },
} as const;

export const devicesPair = operatorRoute({
  name: 'devices.pair',
  method: 'POST',
  path: '/api/v1/devices/pairings',
  summary: 'A short-lived one-time code a person types into an app to pair it as a device.',
  permission: 'operator',
  status: 201,
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'expiresAt'],
    properties: { code: { type: 'string' }, expiresAt: { type: 'string' } },
  },
});

export const devicesExchange = operatorRoute({
  name: 'devices.exchange',
  method: 'POST',
  path: '/api/v1/devices/tokens',
  summary:
    "Exchanges a pairing code (once, before it expires) for a device token limited to the person's side.",
  permission: 'pairing-code',
  status: 201,
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'name'],
    properties: {
      code: { type: 'string', pattern: PAIRING_CODE_PATTERN },
      name: {
        type: 'string',
        minLength: 1,
        maxLength: DEVICE_NAME_MAX,
        pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['device', 'token'],
    properties: { device, token: { type: 'string' } },
  },
});

export const devicesList = operatorRoute({
  name: 'devices.list',
  method: 'GET',
  path: '/api/v1/devices',
  summary: 'The paired devices that are not revoked.',
  permission: 'operator',
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['devices'],
    properties: { devices: { type: 'array', items: device } },
  },
});

export const devicesRevoke = operatorRoute({
  name: 'devices.revoke',
  method: 'DELETE',
  path: '/api/v1/devices/:id',
  summary:
    'Revokes a device: its token is refused from the next request on and its open streams end.',
  permission: 'operator',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: { type: 'string', pattern: DEVICE_ID_PATTERN } },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'revoked'],
    properties: { id: { type: 'string' }, revoked: { type: 'boolean' } },
  },
});
