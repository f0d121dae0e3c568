// The small pieces the response schemas are made of.
import { SCHEMA_VERSION } from '../site-format.ts';

export const str = { type: 'string' } as const;
export const nullableStr = { type: ['string', 'null'] } as const;
export const schemaVersion = { const: SCHEMA_VERSION } as const;
export const cropYear = { type: 'string', pattern: '^\\d{4}/\\d{2}$' } as const;
export const exact = <const P extends Record<string, unknown>>(properties: P) => ({
  type: 'object' as const,
  additionalProperties: false as const,
  required: Object.keys(properties) as (keyof P & string)[],
  properties,
});

// The allowed values a source field and its published field share: written once, here. Each enum
// states its type beside its values, "null" too where null is one of them: generators of clients
// read the type and drop an enum value it does not name (docs/contract.md, Records).
/** A string enum. */
export const strEnum = <const V extends readonly string[]>(...values: V) => ({ type: 'string', enum: values }) as const;
/** A string enum whose value may also be null. */
export const nullableEnum = <const V extends readonly string[]>(...values: V) =>
  ({ type: ['string', 'null'], enum: [...values, null] }) as const;
export const kindEnum = strEnum('wheat', 'cereal', 'oilseed', 'pulse');
export const regionEnum = nullableEnum('western', 'eastern');
export const useClassEnum = nullableEnum('general_purpose', 'malting', 'food');
export const coverageEnum = strEnum('complete', 'partial');
export const directionEnum = strEnum('maximum', 'minimum', 'qualitative');
export const footnoteEffectEnum = strEnum('not_applicable_for_colour', 'sample_name_suffix', 'not_in_total');
export const PARTS_STATED = ['all', 'not_stated'] as const;
/** What a fall-through outcome is: a grade's Sample, Rejected or Salvage, another commodity, … */
export const outcomeKindEnum = strEnum(
  'sample',
  'rejected',
  'salvage',
  'mixed_grain',
  'colour_change',
  'other_commodity',
  'cross_reference',
  'not_stated',
);
