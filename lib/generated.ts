/**
 * Where the build writes its generated modules (dist/generated). Every dist
 * subdirectory sits one level below dist, so this resolves the same from the
 * CLI, the daemon and the tests.
 */
export const GENERATED_DIR = new URL('../generated/', import.meta.url);

/** Action and domain names are plain lowercase words; anything else never reaches the file system. */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

export function validatorFile(domain: string, action: string): URL {
  return new URL(`validators/${domain}.${action}.js`, GENERATED_DIR);
}

export function schemaFile(name: string): URL {
  return new URL(`schemas/${name}.json`, GENERATED_DIR);
}
