import {
  IDEMPOTENCY_KEY_HEADER,
  REQUEST_ID_HEADER,
  bodySelector,
  isSelector,
} from '../../catalog/selectors.js';
import type { Risk } from '../../catalog/descriptor.js';
import { ExecError } from '../errors/exec-error.js';

type HeaderOf = (name: string) => string | undefined;

/**
 * The selector the headers carry, checked before the body is read: each
 * header present must follow the selector grammar (a repeated header arrives
 * joined with ", " and fails it), the two must agree, and only a mutation
 * takes them. Returns the value, undefined for none, or the error to send.
 */
export function headerSelector(header: HeaderOf, risk: Risk): string | undefined | ExecError {
  let value: string | undefined;
  for (const name of [IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER]) {
    const v = header(name);
    if (v === undefined) continue;
    if (!isSelector(v)) {
      return new ExecError(
        'invalid_request',
        `the ${name} header is not a valid selector: 1 to 128 of A-Z a-z 0-9 . _ : -`,
      );
    }
    if (value !== undefined && v !== value) {
      return new ExecError(
        'invalid_request',
        `the ${IDEMPOTENCY_KEY_HEADER} and ${REQUEST_ID_HEADER} headers differ; send one selector`,
      );
    }
    value = v;
  }
  if (value !== undefined && risk !== 'side_effect') {
    return new ExecError(
      'invalid_request',
      `${IDEMPOTENCY_KEY_HEADER} and ${REQUEST_ID_HEADER} apply to mutations only; this action is a read`,
    );
  }
  return value;
}

/**
 * After schema validation, before dispatch: the body's idempotencyKey and
 * requestId must not conflict, and a selector in the headers must be the
 * one in the body. A header alone is the selector: it is put in the body
 * (as `idempotencyKey`, or `requestId` when only X-Request-ID came), so the
 * handler sees the key the caller sent. Returns the input to dispatch, or
 * the error to send.
 */
export function checkSelectors(
  input: unknown,
  fromHeaders: string | undefined,
  header: HeaderOf,
): unknown | ExecError {
  const body = bodySelector(input);
  if (!body.ok)
    return new ExecError('validation_failed', 'conflicting idempotency selectors', {
      details: [body.detail],
    });
  if (fromHeaders === undefined) return input;
  if (body.value === undefined) {
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      return headerOnlyRefused();
    const field = header(IDEMPOTENCY_KEY_HEADER) !== undefined ? 'idempotencyKey' : 'requestId';
    return { ...(input as Record<string, unknown>), [field]: fromHeaders };
  }
  if (body.value !== fromHeaders) {
    return new ExecError(
      'invalid_request',
      `the ${IDEMPOTENCY_KEY_HEADER}/${REQUEST_ID_HEADER} header differs from the body's selector`,
      {
        hint: 'Send the same selector in the body and the headers.',
      },
    );
  }
  return input;
}

/** The action's input has no selector field for a header-only selector to go to. */
export function headerOnlyRefused(): ExecError {
  return new ExecError(
    'invalid_request',
    `the request carries an ${IDEMPOTENCY_KEY_HEADER}/${REQUEST_ID_HEADER} header but this action's input takes no idempotencyKey or requestId`,
    {
      hint: 'Send the request without the selector headers.',
    },
  );
}
