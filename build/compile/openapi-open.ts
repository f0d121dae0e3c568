// The published schemas are open to additions (docs/contract.md, Records): a field added in a
// later version must not make a client generated from this document reject the body. The build's
// own schemas (schema/responses.ts) stay exact: they check every body the build writes, and the
// TypeScript types come from them.

/** Each schema with every `additionalProperties: false` left out (a map's value schema stays). */
export function openToAdditions(schemas: Record<string, unknown>): Record<string, unknown> {
  const open = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(open);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) => !(k === 'additionalProperties' && v === false))
        .map(([k, v]) => [k, open(v)]),
    );
  };
  return open(schemas) as Record<string, unknown>;
}
