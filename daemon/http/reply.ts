import type { Masked } from '../masking/masked.js';

/**
 * An answer of a runtime route before it is sent: the Exec route's code
 * makes these, hono turns one into a Response, the Exec lane writes it to
 * Node as it is (exec/lane.ts). A body is what the result gate produced, or
 * one of the fixed refusals (`fixed`), which quote nothing of the caller's.
 */
export type Reply = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
} & (
  | { readonly body: Masked; readonly fixed?: undefined }
  | { readonly body: string; readonly fixed: true }
);

export const JSON_TYPE: Readonly<Record<string, string>> = { 'content-type': 'application/json' };
