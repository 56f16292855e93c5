// One SQL text for both backends: written with SQLite's `?` placeholders, numbered ($1, $2, ...) for PostgreSQL.

/**
 * `?` -> `$1`, `$2`, ... in order of appearance. For texts whose only difference between the dialects is the
 * placeholders: a `?` inside a quoted string would be numbered too, so such texts keep no literal `?`.
 */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
