import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, bodySelector, isSelector } from '../../catalog/selectors.js';
import type { Risk } from '../../catalog/descriptor.js';
import { ExecError } from '../errors.js';

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
      return new ExecError('invalid_request', `the ${name} header is not a valid selector: 1 to 128 of A-Z a-z 0-9 . _ : -`);
    }
    if (value !== undefined && v !== value) {
      return new ExecError('invalid_request', `the ${IDEMPOTENCY_KEY_HEADER} and ${REQUEST_ID_HEADER} headers differ; send one selector`);
    }
    value = v;
  }
  if (value !== undefined && risk !== 'side_effect') {
    return new ExecError('invalid_request', `${IDEMPOTENCY_KEY_HEADER} and ${REQUEST_ID_HEADER} apply to mutations only; this action is a read`);
  }
  return value;
}

/**
 * After schema validation, before dispatch: the body's idempotencyKey and
 * requestId must not conflict, and a selector in the headers must be the
 * one in the body (a header alone would leave the handler without the key
 * the caller believes it sent).
 */
export function checkSelectors(input: unknown, fromHeaders: string | undefined): ExecError | undefined {
  const body = bodySelector(input);
  if (!body.ok) return new ExecError('validation_failed', 'conflicting idempotency selectors', { details: [body.detail] });
  if (fromHeaders === undefined) return undefined;
  if (body.value === undefined) {
    return new ExecError('invalid_request', `the request carries an ${IDEMPOTENCY_KEY_HEADER}/${REQUEST_ID_HEADER} header but its body has no idempotencyKey or requestId`, {
      hint: 'Put the same selector in the body; the headers only repeat it.',
    });
  }
  if (body.value !== fromHeaders) {
    return new ExecError('invalid_request', `the ${IDEMPOTENCY_KEY_HEADER}/${REQUEST_ID_HEADER} header differs from the body's selector`, {
      hint: 'Send the same selector in the body and the headers.',
    });
  }
  return undefined;
}
