// The data operations of the OpenAPI document (openapi-operations.ts puts every operation together):
// data, one constant an operation, but those whose parameters give the grain ids as examples.
import { cropYear } from '../schema/parts.ts';
import { CHANGELOG_DEFAULT_LIMIT, CHANGELOG_MAX_LIMIT, CROP_YEAR_PARAM } from '../site-format.ts';
import { conditionals, dataOperation, type Operation } from './openapi-parts.ts';

const grainIdParameter = (ids: string[], where: 'path' | 'query', description: string) => ({
  name: 'grain_id',
  in: where,
  required: where === 'path',
  description,
  schema: { type: 'string', examples: ids },
});
/** `?crop_year=` (docs/contract.md, Crop years). */
const cropYearParameter = (description: string) => ({
  name: CROP_YEAR_PARAM,
  in: 'query',
  required: false,
  description: `${description}; written 2025/26 (the slash may be sent as %2F)`,
  schema: { ...cropYear, examples: ['2025/26'] },
});

const grains: Operation = {
  operationId: 'listGrains',
  tag: 'data',
  summary: 'List the supported grain classes',
  description: 'One summary per supported grain class, without factor data, in the dataset order.',
  ...dataOperation('GrainList'),
};

const grain = (ids: string[]): Operation => ({
  operationId: 'getGrain',
  tag: 'data',
  summary: 'One grain class with all its factor groups, factors and thresholds',
  description:
    'The grading factor table of one grain class, with the fields a program grades with; with crop_year, ' +
    'the table as it stood at the end of that crop year (1 August to 31 July), or now for the current one.',
  ...dataOperation('GrainRecord', {
    parameters: [
      grainIdParameter(ids, 'path', 'matched case-insensitively'),
      cropYearParameter('a crop year the class was published for (its crop_years); without it, the current record'),
      ...conditionals,
    ],
    errors: ['bad_query', 'repeated_param', 'bad_crop_year', 'unknown_grain', 'unknown_crop_year'],
  }),
});

const snapshot: Operation = {
  operationId: 'getSnapshot',
  tag: 'data',
  summary: 'Every record and the whole changelog, in one body',
  description:
    'What a sync needs in one request: every record, each exactly as GET /api/grains/{grain_id} serves it, ' +
    'in the list order, and every changelog entry, newest first. With crop_year, the records as they stood ' +
    'at the end of that crop year, of the classes published for it. Revalidate it with If-None-Match: a ' +
    '304 costs no quota.',
  ...dataOperation('Snapshot', {
    parameters: [
      cropYearParameter('a crop year some class was published for; without it, the current tables'),
      ...conditionals,
    ],
    errors: ['bad_query', 'repeated_param', 'bad_crop_year', 'unknown_crop_year'],
  }),
};

const changelog = (ids: string[]): Operation => ({
  operationId: 'getChangelog',
  tag: 'data',
  summary: 'Dataset updates, newest first',
  description:
    'The dataset updates, newest first (effective_date, then created_at descending); ' +
    'a client detects a change by polling it.',
  ...dataOperation('Changelog', {
    parameters: [
      grainIdParameter(ids, 'query', 'keep entries affecting this class (case-insensitive)'),
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: CHANGELOG_MAX_LIMIT, default: CHANGELOG_DEFAULT_LIMIT },
      },
      ...conditionals,
    ],
    errors: ['bad_query', 'repeated_param', 'bad_limit', 'unknown_grain'],
  }),
});

/** The operations of the data tag, keyed by their route's name; `ids` are the grain ids, as examples. */
export const dataOperations = (ids: string[]) => ({ grains, grain: grain(ids), snapshot, changelog: changelog(ids) });
