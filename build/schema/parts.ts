// The small pieces the response schemas are made of.

export const str = { type: 'string' } as const;
export const nullableStr = { type: ['string', 'null'] } as const;
export const schemaVersion = { const: '1.0' } as const;
export const cropYear = { type: 'string', pattern: '^\\d{4}/\\d{2}$' } as const;
export const exact = <const P extends Record<string, unknown>>(properties: P) => ({
  type: 'object' as const,
  additionalProperties: false as const,
  required: Object.keys(properties) as (keyof P & string)[],
  properties,
});
