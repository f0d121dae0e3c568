// JSON Schemas (2020-12) of every response body: the one description of the published shapes.
// The TypeScript types (build/types.ts) are derived from these constants; the OpenAPI document
// embeds them, each named schema as a component that the others reach by $ref (componentsOf),
// open to additions there (openapi-open.ts); the tests validate every published body against these
// exact ones. Field sets are exact (docs/contract.md, Records): additionalProperties is false and
// every field is required.

import { CROP_YEAR_PARAM, GRAIN_ID_PATTERN } from '../site-format.ts';
import {
  RecoveryAccepted,
  RecoveryConfirmRequest,
  RecoveryRequest,
  Registration,
  RegistrationRequest,
} from './keys.ts';
import {
  coverageEnum,
  cropYear,
  directionEnum,
  exact,
  footnoteEffectEnum,
  kindEnum,
  nullableEnum,
  nullableStr,
  outcomeKindEnum,
  PARTS_STATED,
  regionEnum,
  schemaVersion,
  str,
  strEnum,
  useClassEnum,
} from './parts.ts';
import { ErrorBody, Health } from './service.ts';
import {
  PartialLimit,
  Threshold,
  ThresholdJudgment,
  ThresholdNoLimit,
  ThresholdNotApplicable,
  ThresholdNumeric,
  ThresholdQualitative,
} from './threshold.ts';

/** A crop year as a request asks for it (docs/contract.md, Crop years). */
const ASKED = `?${CROP_YEAR_PARAM}=`;

const summaryFields = {
  grain_id: { type: 'string', pattern: GRAIN_ID_PATTERN },
  grain_name: str,
  kind: kindEnum,
  region: regionEnum,
  use_class: useClassEnum,
  effective_crop_year: cropYear,
  crop_years: {
    type: 'array',
    items: cropYear,
    minItems: 1,
    description: `every crop year ${ASKED} answers for this class, oldest first, ending with effective_crop_year`,
  },
  coverage_status: coverageEnum,
  grades: { type: 'array', items: str, minItems: 1 },
} as const;

const FallthroughCondition = exact({
  condition: { type: 'string', description: 'e.g. "<= 2.5%" or "> 10%"' },
  region: regionEnum,
  grade: str,
});

const FallthroughOutcome = {
  ...exact({
    condition: {
      type: ['string', 'null'],
      description: 'e.g. "<= 2.5%": the outcome applies when the measured value meets it; null: whatever the value',
    },
    region: { ...regionEnum, description: 'null: in either region' },
    kind: outcomeKindEnum,
    text: { type: ['string', 'null'], description: 'the outcome as printed; null when not stated' },
    template: {
      type: ['string', 'null'],
      description: 'the text with {grade}, {class} and {colour} where the page leaves them to be filled in',
    },
    placeholders: { type: 'array', items: strEnum('grade', 'class', 'colour') },
    account: { type: ['string', 'null'], description: 'the account named, e.g. "Stones"' },
    refers_to: { type: ['string', 'null'], description: 'cross_reference: the section of the guide it points to' },
    colour: { type: ['string', 'null'], description: 'colour_change: the colour the sample takes (Mixed)' },
  }),
  description:
    'what happens to a sample that fails the lowest grade on this factor; the first outcome whose ' +
    'condition and region match applies',
} as const;

const Factor = exact({
  factor_id: str,
  factor_label: str,
  unit: { type: 'string', description: '"%" or another unit; "" for a descriptive factor' },
  unit_alt: nullableStr,
  threshold_direction: directionEnum,
  is_aggregate: { type: 'boolean' },
  aggregates: {
    type: ['array', 'null'],
    items: str,
    description:
      'factor_ids of sibling factors this Total counts. Where parts_stated is not_stated the page does not list ' +
      "the Total's parts: this list is an editor's reading of the rows printed with it, not the authority's",
  },
  unlisted_parts: {
    type: ['array', 'null'],
    items: str,
    description: 'a Total: the parts its label names that have no row of their own (e.g. Heated); null: not a Total',
  },
  parts_stated: {
    ...nullableEnum(...PARTS_STATED),
    description:
      'a Total: all when its label names every part it counts; not_stated when it names a category ' +
      '(Foreign material, Damage) whose parts the page does not list; null: not a Total',
  },
  footnote_ref: nullableStr,
  thresholds: { type: 'object', additionalProperties: Threshold, description: 'one threshold per grade name' },
  fallthrough: nullableStr,
  fallthrough_conditions: {
    type: ['array', 'null'],
    items: FallthroughCondition,
    description: 'first matching condition applies',
  },
  fallthrough_outcomes: {
    type: ['array', 'null'],
    items: FallthroughOutcome,
    description: 'null when no value can fail the lowest grade on this factor',
  },
});

const FactorGroup = exact({ group_id: str, group_label: str, factors: { type: 'array', items: Factor } });
const FootnoteRule = {
  ...exact({
    footnote: { type: 'string', description: 'the key of the footnote in footnotes' },
    effect: {
      ...footnoteEffectEnum,
      description:
        'not_applicable_for_colour: factor_ids are not assessed for a sample of that colour; sample_name_suffix: ' +
        'a fall-through Sample grade of the track takes the suffix; ' +
        'not_in_total: factor_ids are not counted in total_id',
    },
    factor_ids: { type: 'array', items: str },
    total_id: nullableStr,
    colour: nullableStr,
    track: nullableStr,
    suffix: nullableStr,
  }),
  description: 'a footnote that changes how a sample is graded, as data (the text stays in footnotes)',
} as const;

const GradeFloorRule = exact({
  account: str,
  floor_grade: str,
  note: str,
  factor_ids: {
    type: 'array',
    items: str,
    description: 'the factors the account is assessed on; [] when the page does not say',
  },
});
const VarietyTrack = exact({ track_id: str, grades: { type: 'array', items: str } });
const GrainSummary = exact(summaryFields);

const GrainRecord = exact({
  schema_version: schemaVersion,
  ...summaryFields,
  variety_tracks: { type: ['array', 'null'], items: VarietyTrack },
  colour_modifier: { type: 'boolean' },
  colours: {
    type: ['array', 'null'],
    items: str,
    description: 'where colour_modifier: the colours the grade name takes (Yellow, White, Mixed); null otherwise',
  },
  size_modifier: { type: 'boolean' },
  notes: { type: 'array', items: str, description: "the page's notes on the table, as printed; [] when none" },
  footnote_rules: { type: 'array', items: FootnoteRule },
  source_url: { type: 'string', format: 'uri' },
  last_scraped: { type: 'string', format: 'date-time' },
  fallthrough_label: str,
  grade_floor_rules: { type: 'array', items: GradeFloorRule },
  factor_groups: { type: 'array', items: FactorGroup },
  footnotes: { type: 'object', additionalProperties: str },
});

const GrainList = exact({
  schema_version: schemaVersion,
  count: { type: 'integer' },
  grains: { type: 'array', items: GrainSummary },
});

/** One published value an entry changed (docs/contract.md, "Changes as data"). */
const ChangelogChange = exact({
  grain_id: str,
  factor_id: { ...nullableStr, description: 'the factor changed; null where the change is not in a factor' },
  grade: { ...nullableStr, description: 'the grade of the threshold changed; null where the change is not a cell' },
  field: {
    ...nullableStr,
    description:
      "the field changed: a threshold's field where grade is set, else a factor's where factor_id is set, else " +
      "the record's; factor_groups: the groups' layout ({group_id, group_label, factor_ids}); null: the whole " +
      'cell, factor or record was added or removed',
  },
  from: { description: 'the value as the record published it before; null for an addition' },
  to: { description: 'the value as the record publishes it now; null for a removal' },
});

const ChangelogEntry = exact({
  id: str,
  crop_year: cropYear,
  effective_date: { type: 'string', format: 'date' },
  grain_ids_affected: { type: 'array', items: str },
  summary: str,
  created_at: { type: 'string', format: 'date-time' },
  changes: {
    type: ['array', 'null'],
    items: ChangelogChange,
    description: 'every published value the entry changed; null for entries made before changes were recorded',
  },
  correction: {
    type: 'boolean',
    description:
      "true when the entry corrects its crop_year's table after that crop year ended (its effective_date lies " +
      'after 31 July of its second year): a printed number or label of that year was wrong; false otherwise',
  },
});

const Changelog = exact({
  schema_version: schemaVersion,
  count: { type: 'integer', minimum: 0, maximum: 100 },
  entries: { type: 'array', items: ChangelogEntry, maxItems: 100 },
});

/** Every record and the whole changelog in one body, for a sync (docs/contract.md, The snapshot). */
const Snapshot = exact({
  schema_version: schemaVersion,
  crop_year: {
    ...cropYear,
    type: ['string', 'null'],
    description: 'the crop year asked for; null for the current tables, whose classes stand at different crop years',
  },
  count: { type: 'integer', minimum: 0 },
  grains: { type: 'array', items: GrainRecord, description: 'each record as GET /api/grains/{grain_id} serves it' },
  changelog: {
    type: 'array',
    items: ChangelogEntry,
    description: "every entry, newest first; a crop year's snapshot: the entries of that year and the years before",
  },
});

/** The named schemas, in the order the OpenAPI document lists them. */
export const responseSchemas = {
  Threshold,
  ThresholdNumeric,
  ThresholdNoLimit,
  ThresholdNotApplicable,
  ThresholdQualitative,
  ThresholdJudgment,
  PartialLimit,
  FallthroughCondition,
  FallthroughOutcome,
  Factor,
  FactorGroup,
  GradeFloorRule,
  FootnoteRule,
  VarietyTrack,
  GrainSummary,
  GrainRecord,
  GrainList,
  ChangelogChange,
  ChangelogEntry,
  Changelog,
  Snapshot,
  Registration,
  RegistrationRequest,
  RecoveryAccepted,
  RecoveryRequest,
  RecoveryConfirmRequest,
  Error: ErrorBody,
  Health,
} as const;

/**
 * The schemas as OpenAPI components: inside each, a named schema used as a part becomes a $ref
 * to its component, so the document states each shape once.
 */
export function componentsOf(schemas: Record<string, object>): Record<string, unknown> {
  const names = new Map<object, string>(Object.entries(schemas).map(([name, s]) => [s, name]));
  const walk = (value: unknown, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, false));
    if (!value || typeof value !== 'object') return value;
    const name = names.get(value);
    if (name !== undefined && !top) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, false)]));
  };
  return Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, walk(s, true)]));
}
