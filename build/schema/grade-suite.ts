// The conformance suite's shape (JSON Schema 2020-12), published as /client/grade-suite.schema.json
// beside /client/grade-suite.json: groups of cases, each a sample and the answer a grader must give
// (the fields it names), with the table's row and column that decide it. docs/grading.md "Checking a port".
import { fileIn, GRAIN_ID_PATTERN } from '../site-format.ts';
import { exact, str, strEnum } from './parts.ts';

const expected = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    result: strEnum('grade', 'fallthrough', 'undetermined'),
    grade: { type: ['string', 'null'], pattern: '^(?!Not stated)' },
    missing: { type: 'array', items: str },
    judgments_needed: { type: 'array', items: { type: 'object' } },
    outcomes: { type: 'array', items: { type: 'object' } },
    note: { type: ['string', 'null'] },
    field: { ...str, description: 'the sample cannot be real: the answer is an error naming this field' },
  },
  description: "the answer's fields a grader must give exactly (compared as JSON); fields not named are free",
  oneOf: [
    { properties: { result: true, grade: true }, required: ['result', 'grade'] },
    { properties: { field: true }, required: ['field'] },
  ],
} as const;

const GradeSuiteCase = {
  ...exact({
    description: str,
    grain_id: { type: 'string', pattern: GRAIN_ID_PATTERN, description: "the class, where not the group's" },
    sample: { type: 'object', description: 'the sample, as grade(record, sample) takes it' },
    expected,
    decided_by: { ...str, minLength: 10, description: "the authority's table: which row and column decide it" },
  }),
  required: ['description', 'sample', 'expected', 'decided_by'],
} as const;

export const gradeSuiteSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: fileIn('client', 'grade-suite.schema.json'),
  title: "The reference grader's conformance suite: every case a port must pass",
  type: 'array',
  minItems: 1,
  items: exact({
    grain_id: { type: 'string', pattern: GRAIN_ID_PATTERN },
    description: str,
    cases: { type: 'array', minItems: 1, items: GradeSuiteCase },
  }),
} as const;
