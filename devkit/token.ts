/** A runtime token's own claims, read without verifying it (the tests compare them with what the daemon enforces). */

/** The `exp` claim of a JWT, in ms. */
export function expiryMs(token: string): number {
  return (
    (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number })
      .exp * 1000
  );
}
