/**
 * The one rule for names that say "this holds a credential". It serves two
 * purposes: the daemon's environment variables whose values the gate masks
 * wherever they occur (sources.ts), and the keys of structured results from
 * outside the daemon whose values the gate redacts whatever they are
 * (credential-fields.ts).
 *
 * Names are compared in one spelling, so `apiKey`, `api-key`, `API_KEY` and
 * `Api Key` are the same name: camelCase is split into words, every run of
 * other characters becomes `_`, and the whole is upper-cased. `AUTHOR` (and
 * `AUTHORS`, `AUTHORED`) is a person, not a credential; `AUTHORIZATION` is.
 */
const CREDENTIAL_NAME =
  /TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|(^|_)KEY$|CREDENTIAL|AUTH(?!OR(S|ED)?(_|$))|COOKIE|SESSION_?ID/;

/** `name` in the one spelling the rule reads: `apiKey` → `API_KEY`, `x-auth-token` → `X_AUTH_TOKEN`. */
function spelled(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(spelled(name));
}
