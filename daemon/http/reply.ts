import type { Masked } from '../masking/masked.js';

/**
 * An answer of a runtime route before it is sent: the Exec route's code
 * makes these, hono turns one into a Response, the Exec lane writes it to
 * Node as it is (exec/lane.ts). A body is what the result gate produced, or
 * one of the fixed refusals (`fixed`), which quote nothing of the caller's.
 */
interface Head {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** A refusal of the daemon's own words. */
export type FixedReply = Head & { readonly body: string; readonly fixed: true };

export type Reply = (Head & { readonly body: Masked; readonly fixed?: undefined }) | FixedReply;

export const JSON_TYPE: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/** A fixed 403 envelope whose message is the daemon's own words (a Host/Origin refusal), never the caller's. */
export function forbiddenReply(message: string): FixedReply {
  const body = JSON.stringify({ ok: false, error: { code: 'forbidden', message } });
  return { status: 403, body, headers: JSON_TYPE, fixed: true };
}

/**
 * A fixed reply as a Response, for hono. (A reply the gate made is sent with
 * `gate.respond` instead, which marks it screened.)
 */
export function fixedResponse(r: FixedReply): Response {
  return new Response(r.body, { status: r.status, headers: r.headers });
}
