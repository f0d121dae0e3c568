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

// The allowed values a source field and its published field share: written once, here.
export const kindEnum = { enum: ['wheat', 'cereal', 'oilseed', 'pulse'] } as const;
export const regionEnum = { enum: ['western', 'eastern', null] } as const;
export const useClassEnum = { enum: ['general_purpose', 'malting', 'food', null] } as const;
export const coverageEnum = { enum: ['complete', 'partial'] } as const;
export const directionEnum = { enum: ['maximum', 'minimum', 'qualitative'] } as const;
export const footnoteEffectEnum = {
  enum: ['not_applicable_for_colour', 'sample_name_suffix', 'not_in_total'],
} as const;
export const PARTS_STATED = ['all', 'not_stated'] as const;
/** What a fall-through outcome is: a grade's Sample, Rejected or Salvage, another commodity, … */
export const outcomeKindEnum = {
  enum: [
    'sample',
    'rejected',
    'salvage',
    'mixed_grain',
    'colour_change',
    'other_commodity',
    'cross_reference',
    'not_stated',
  ],
} as const;
