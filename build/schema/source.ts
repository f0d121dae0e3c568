// JSON Schemas of the files editors write. ajv checks them with allErrors; validate.ts adds the
// checks a schema cannot express. `description`s are shown to editors in error messages.

import { CONDITION_PATTERN } from '../grading/outcome-condition.ts';
import { GRAIN_ID_PATTERN } from '../site-format.ts';
import {
  coverageEnum,
  cropYear as cropYearPart,
  directionEnum,
  footnoteEffectEnum,
  kindEnum,
  PARTS_STATED,
  regionEnum,
  strEnum,
  useClassEnum,
} from './parts.ts';

const text = { type: 'string', minLength: 1 } as const;
const id = {
  type: 'string',
  pattern: '^[a-z][a-z0-9_]*$',
  description: 'lower snake case, e.g. total_foreign_material',
} as const;
const cropYear = { ...cropYearPart, description: 'a crop year such as 2025/26' } as const;
const timestamp = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$',
  description: 'an ISO 8601 UTC timestamp such as 2026-04-12T00:00:00Z',
} as const;
const grainId = {
  type: 'string',
  pattern: GRAIN_ID_PATTERN,
  description: 'an upper-case grain id such as CWRS',
} as const;

export const grainFileSchema = {
  $id: 'grain-file',
  type: 'object',
  additionalProperties: false,
  required: [
    'grain_id',
    'grain_name',
    'kind',
    'effective_crop_year',
    'source_url',
    'last_scraped',
    'grades',
    'fallthrough_label',
    'factor_groups',
  ],
  properties: {
    grain_id: grainId,
    grain_name: text,
    kind: kindEnum,
    region: regionEnum,
    use_class: useClassEnum,
    effective_crop_year: cropYear,
    coverage_status: coverageEnum,
    source_url: { type: 'string', pattern: '^https://', description: 'the https URL of the authority page' },
    source_section: text,
    last_scraped: timestamp,
    grades: { type: 'array', minItems: 1, items: text },
    variety_tracks: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['track_id', 'grades'],
        properties: { track_id: id, grades: { type: 'array', minItems: 1, items: text } },
      },
    },
    colour_modifier: { type: 'boolean' },
    colours: {
      type: 'array',
      minItems: 2,
      items: text,
      description: 'the colours the grade name takes, as the class name lists them, e.g. [Yellow, White, Mixed]',
    },
    size_modifier: { type: 'boolean' },
    notes: { type: 'array', items: text, description: "the page's notes on the table, as printed" },
    footnote_rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['footnote', 'effect'],
        properties: {
          footnote: { type: 'string', description: 'the footnote key, in quotes' },
          effect: footnoteEffectEnum,
          factor_ids: { type: 'array', items: id },
          total_id: id,
          colour: text,
          track: id,
          suffix: text,
        },
      },
    },
    fallthrough_label: text,
    grade_floor_rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['account', 'floor_grade', 'note', 'factor_ids'],
        properties: {
          account: id,
          floor_grade: text,
          note: text,
          factor_ids: {
            type: 'array',
            items: id,
            description:
              'the factors the account is assessed on, e.g. [degree_of_soundness]; [] when the page does not say',
          },
        },
      },
    },
    footnotes: { type: 'object', additionalProperties: text, propertyNames: { pattern: '^[A-Za-z0-9]+$' } },
    factor_groups: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['group_id', 'group_label', 'factors'],
        properties: {
          group_id: id,
          group_label: text,
          factors: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['factor_id', 'factor_label', 'thresholds'],
              properties: {
                factor_id: id,
                factor_label: text,
                unit: { type: 'string' },
                unit_alt: text,
                threshold_direction: directionEnum,
                aggregates: { type: 'array', minItems: 1, items: id },
                unlisted_parts: {
                  type: 'array',
                  items: text,
                  description: "the parts the Total's label names that have no row, e.g. [Heated]; [] when none",
                },
                parts_stated: {
                  ...strEnum(...PARTS_STATED),
                  description: 'all: the label names every part; not_stated: it names a category (Foreign material)',
                },
                footnote_ref: { type: 'string', description: 'a footnote key in quotes, e.g. "1"' },
                // Each cell's grammar is checked by cells.ts, whose messages say what may be written.
                thresholds: { type: 'array', minItems: 1 },
                fallthrough: text,
                fallthrough_conditions: {
                  type: 'array',
                  minItems: 1,
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['condition', 'grade'],
                    properties: {
                      condition: {
                        type: 'string',
                        pattern: CONDITION_PATTERN,
                        description: 'like "<= 2.5%" or "> 10%"',
                      },
                      region: regionEnum,
                      grade: text,
                    },
                  },
                },
                monotonic_waiver: { ...text, description: 'why this row may get stricter at a lower grade' },
              },
            },
          },
        },
      },
    },
  },
} as const;

export const changelogFileSchema = {
  $id: 'changelog-file',
  type: 'object',
  additionalProperties: false,
  required: ['entries'],
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'crop_year', 'effective_date', 'grain_ids_affected', 'summary', 'created_at'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', description: 'lower case letters, digits and dashes' },
          crop_year: cropYear,
          effective_date: {
            type: 'string',
            pattern: '^\\d{4}-\\d{2}-\\d{2}$',
            description: 'a date such as 2026-11-22',
          },
          grain_ids_affected: { type: 'array', minItems: 1, items: grainId },
          summary: text,
          created_at: timestamp,
          correction: {
            const: true,
            description:
              "written by npm run changelog -- --correction: the entry corrects its crop year's table after that " +
              'year ended (absent otherwise)',
          },
          changes: {
            type: 'array',
            description: 'written by npm run changelog: every published value the entry changed',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['grain_id', 'factor_id', 'grade', 'field', 'from', 'to'],
              properties: {
                grain_id: grainId,
                factor_id: { type: ['string', 'null'] },
                grade: { type: ['string', 'null'] },
                field: { type: ['string', 'null'] },
                from: {},
                to: {},
              },
            },
          },
        },
      },
    },
  },
} as const;

export const indexFileSchema = {
  $id: 'index-file',
  type: 'object',
  additionalProperties: false,
  required: ['grains'],
  properties: { grains: { type: 'array', minItems: 1, items: grainId } },
} as const;
