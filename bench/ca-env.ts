/**
 * The environments the CLI start-up benchmarks measure in. Some machines (this
 * one and its CI among them) set NODE_EXTRA_CA_CERTS, which makes node read and
 * parse a CA bundle at every start, before any script runs: tens of ms that
 * `node -e 0` and the CLI pay alike, so every ratio to `node -e 0` looks
 * smaller than on a machine without it. The benchmarks therefore report the
 * environment as given and, when the variable is set, the same environment
 * without it. Each variant's ratios compare against `node -e 0` run in that
 * same variant.
 */
export interface EnvVariant {
  /** Short label for the report, e.g. "as given (NODE_EXTRA_CA_CERTS set)". */
  readonly label: string;
  readonly env: NodeJS.ProcessEnv;
}

export function caVariants(base: NodeJS.ProcessEnv): EnvVariant[] {
  if (!base.NODE_EXTRA_CA_CERTS)
    return [{ label: 'NODE_EXTRA_CA_CERTS unset, as given', env: base }];
  const without: NodeJS.ProcessEnv = { ...base };
  delete without.NODE_EXTRA_CA_CERTS;
  return [
    { label: 'env as given, NODE_EXTRA_CA_CERTS set', env: base },
    { label: 'NODE_EXTRA_CA_CERTS unset', env: without },
  ];
}
