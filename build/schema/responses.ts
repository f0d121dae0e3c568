// JSON Schemas (2020-12) of every response body: the OpenAPI document embeds them, and the tests
// validate every published body against the copy in that document. Field sets are exact
// (interface.md, decisions.md §1): additionalProperties is false and every field is required.

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const schemaVersion = { const: '1.0' } as const;
const cropYear = { type: 'string', pattern: '^\\d{4}/\\d{2}$' } as const;
const exact = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

const summaryFields = {
  grain_id: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
  grain_name: str,
  kind: { enum: ['wheat', 'cereal', 'oilseed', 'pulse'] },
  region: { enum: ['western', 'eastern', null] },
  use_class: { enum: ['general_purpose', 'malting', 'food', null] },
  effective_crop_year: cropYear,
  coverage_status: { enum: ['complete', 'partial'] },
  grades: { type: 'array', items: str, minItems: 1 },
};

export const responseSchemas = {
  Threshold: {
    ...exact({
      value_type: { enum: ['numeric', 'no_limit', 'not_applicable', 'qualitative', 'qualitative_judgment'] },
      value: { type: ['number', 'string', 'null'] },
      value_alt: { type: ['number', 'null'], description: 'the value in the factor\'s unit_alt (test weight in g/0.5 L)' },
      threshold_note: nullableStr,
      decimals: { type: ['integer', 'null'], minimum: 0, description: 'decimal places as the authority prints the number (0.10 has 2)' },
    }),
    description: 'numeric: value is a number; qualitative and qualitative_judgment: value is the authority\'s text; no_limit and not_applicable: value is null',
  },
  FallthroughCondition: exact({
    condition: { type: 'string', description: 'e.g. "<= 2.5%" or "> 10%"' },
    region: { enum: ['western', 'eastern', null] },
    grade: str,
  }),
  Factor: exact({
    factor_id: str,
    factor_label: str,
    unit: { type: 'string', description: '"%" or another unit; "" for a descriptive factor' },
    unit_alt: nullableStr,
    threshold_direction: { enum: ['maximum', 'minimum', 'qualitative'] },
    is_aggregate: { type: 'boolean' },
    aggregates: { type: ['array', 'null'], items: str, description: 'factor_ids of sibling factors whose sum this total limits' },
    footnote_ref: nullableStr,
    thresholds: { type: 'object', additionalProperties: ref('Threshold'), description: 'one threshold per grade name' },
    fallthrough: nullableStr,
    fallthrough_conditions: { type: ['array', 'null'], items: ref('FallthroughCondition'), description: 'first matching condition applies' },
  }),
  FactorGroup: exact({ group_id: str, group_label: str, factors: { type: 'array', items: ref('Factor') } }),
  GradeFloorRule: exact({ account: str, floor_grade: str, note: str }),
  VarietyTrack: exact({ track_id: str, grades: { type: 'array', items: str } }),
  GrainSummary: exact(summaryFields),
  GrainRecord: exact({
    schema_version: schemaVersion,
    ...summaryFields,
    variety_tracks: { type: ['array', 'null'], items: ref('VarietyTrack') },
    colour_modifier: { type: 'boolean' },
    size_modifier: { type: 'boolean' },
    source_url: { type: 'string', format: 'uri' },
    last_scraped: { type: 'string', format: 'date-time' },
    fallthrough_label: str,
    grade_floor_rules: { type: 'array', items: ref('GradeFloorRule') },
    factor_groups: { type: 'array', items: ref('FactorGroup') },
    footnotes: { type: 'object', additionalProperties: str },
  }),
  GrainList: exact({ schema_version: schemaVersion, count: { type: 'integer' }, grains: { type: 'array', items: ref('GrainSummary') } }),
  ChangelogEntry: exact({
    id: str,
    crop_year: cropYear,
    effective_date: { type: 'string', format: 'date' },
    grain_ids_affected: { type: 'array', items: str },
    summary: str,
    created_at: { type: 'string', format: 'date-time' },
  }),
  Changelog: exact({
    schema_version: schemaVersion,
    count: { type: 'integer', minimum: 0, maximum: 100 },
    entries: { type: 'array', items: ref('ChangelogEntry'), maxItems: 100 },
  }),
  Registration: exact({ api_key: str, email: str, schema_version: schemaVersion }),
  RegistrationRequest: {
    type: 'object',
    required: ['email'],
    properties: { email: { type: 'string', maxLength: 254, format: 'email' } },
  },
  Error: exact({ error: str, status: { type: 'integer' }, schema_version: schemaVersion }),
  Health: exact({
    status: { enum: ['ok', 'degraded'] },
    store: { enum: ['ok', 'unavailable'], description: 'whether keys and limits can be checked right now' },
    dataset_version: str,
    build_id: str,
    schema_version: schemaVersion,
  }),
} as const;

export type ResponseSchemaName = keyof typeof responseSchemas;
