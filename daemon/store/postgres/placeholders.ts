/**
 * Portable statements use `?` placeholders; PostgreSQL numbers them ($1, $2…).
 * The store's SQL never holds a `?` inside a literal or an identifier, and the
 * translation is cached per statement text (a handful of distinct texts).
 */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
