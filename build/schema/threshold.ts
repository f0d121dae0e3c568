// The threshold schemas: one per value_type, joined by a discriminator on value_type (docs/contract.md, Records),
// so that a generated client gets a numeric `value` exactly when value_type is numeric.
import { exact, nullableStr, str } from './parts.ts';

export const PartialLimit = exact({
  of: { type: 'array', items: str, description: 'the parts, as printed' },
  key: { type: 'string', description: "the key of the parts' sum in a sample's values" },
});
const nullType = { type: 'null' } as const;
const note = nullableStr;

/**
 * A threshold, one schema per value_type (a discriminated union): a generated client gets a
 * numeric `value` exactly when value_type is numeric (docs/contract.md, Records).
 */
export const ThresholdNumeric = {
  ...exact({
    value_type: { const: 'numeric' },
    value: { type: 'number', description: 'the limit, exact as printed' },
    value_alt: {
      type: ['number', 'null'],
      description: "the limit in the factor's unit_alt (test weight in g/0.5 L), else null",
    },
    threshold_note: note,
    decimals: {
      type: 'integer',
      minimum: 0,
      description: 'decimal places as the authority prints the number (0.10 has 2): round a measured value to them',
    },
    partial: {
      oneOf: [nullType, PartialLimit],
      description: 'a partial limit: the value limits only these parts of the factor, together; null otherwise',
    },
  }),
  description: 'a number: the limit at this grade (a maximum or a minimum, as the factor says)',
} as const;
const noValue = <const V extends string>(value_type: V, description: string) => ({
  ...exact({
    value_type: { const: value_type },
    value: nullType,
    value_alt: nullType,
    threshold_note: note,
    decimals: nullType,
    partial: nullType,
  }),
  description,
});
export const ThresholdNoLimit = noValue('no_limit', 'assessed, but no limit at this grade ("No minimum", "No limit")');
export const ThresholdNotApplicable = noValue('not_applicable', 'not assessed at this grade');
const textValue = <const V extends string>(value_type: V, description: string) => ({
  ...exact({
    value_type: { const: value_type },
    value: { type: 'string', description: "the authority's text" },
    value_alt: nullType,
    threshold_note: note,
    decimals: nullType,
    partial: nullType,
  }),
  description,
});
export const ThresholdQualitative = textValue('qualitative', 'a text standard (a qualitative factor, such as Variety)');
export const ThresholdJudgment = textValue(
  'qualitative_judgment',
  'text that replaces a number at this grade ("Consider overall appearance"): an inspector judges it',
);

export const Threshold = {
  oneOf: [ThresholdNumeric, ThresholdNoLimit, ThresholdNotApplicable, ThresholdQualitative, ThresholdJudgment],
  discriminator: {
    propertyName: 'value_type',
    mapping: {
      numeric: '#/components/schemas/ThresholdNumeric',
      no_limit: '#/components/schemas/ThresholdNoLimit',
      not_applicable: '#/components/schemas/ThresholdNotApplicable',
      qualitative: '#/components/schemas/ThresholdQualitative',
      qualitative_judgment: '#/components/schemas/ThresholdJudgment',
    },
  },
  description: 'one per grade: what the sample must meet at that grade, by value_type',
} as const;
