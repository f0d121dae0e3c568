// The reference grader's answer, as one JSON Schema (2020-12): published beside the module as
// /client/grade-result.schema.json, the type GradeResult derived from it (json-schema-to-ts), and
// the tests validate every answer against it. docs/grading.md "The result" says what each field means.
import { fileIn } from '../site-format.ts';
import { exact, nullableStr, outcomeKindEnum, str, strEnum } from './parts.ts';

const gradeName = { type: 'string', minLength: 1, pattern: '^(?!Not stated)' } as const;

const GradeLimiting = exact({
  factor_id: str,
  value: { type: ['number', 'string', 'null'], description: 'what the sample gave: a number, a judged grade, or null' },
  limit: { type: ['number', 'string', 'null'], description: "the cell's value at that grade" },
  grade: { ...str, description: 'the grade whose cell the factor failed' },
});

const GradeOutcome = exact({
  factor_id: str,
  kind: outcomeKindEnum,
  grade: { type: ['string', 'null'], pattern: '^(?!Not stated)', description: 'null where the page states none' },
  reason: { ...nullableStr, description: 'why grade is null' },
  note: { ...nullableStr, description: "a footnote's instruction that goes with the grade" },
});

const JudgmentNeeded = exact({
  factor_id: str,
  grade: { ...str, description: 'the grade whose standard the sample must be judged to meet (or not) on the factor' },
  standard: { ...nullableStr, description: "the cell's text: the standard to judge by" },
});

/** The answer's fields (the type is derived from these; GradeAnswer adds how they go together). */
export const GradeAnswerFields = exact({
  result: strEnum('grade', 'fallthrough', 'undetermined'),
  grade: {
    type: ['string', 'null'],
    pattern: '^(?!Not stated)',
    description: 'a grade name, never a sentence; null when undetermined or when the page states no outcome',
  },
  reason: { ...nullableStr, description: 'why grade is null; null otherwise' },
  note: { ...nullableStr, description: "a footnote's instruction that goes with the grade (barley: add Hulless)" },
  outcomes: { type: 'array', items: GradeOutcome, description: 'a fall-through: one per failing factor, page order' },
  limiting: { type: 'array', items: GradeLimiting },
  missing: { type: 'array', items: str, uniqueItems: true },
  judgments_needed: { type: 'array', items: JudgmentNeeded },
});

/** The fields, and how they go together for each kind of result. */
const GradeAnswer = {
  ...GradeAnswerFields,
  oneOf: [
    {
      properties: {
        result: { const: 'grade' },
        grade: gradeName,
        reason: { const: null },
        outcomes: { type: 'array', maxItems: 0 },
      },
    },
    {
      properties: {
        result: { const: 'undetermined' },
        grade: { const: null },
        reason: str,
        outcomes: { type: 'array', maxItems: 0 },
      },
    },
    {
      properties: { result: { const: 'fallthrough' }, outcomes: { type: 'array', minItems: 1 } },
      oneOf: [
        { properties: { grade: gradeName, reason: { const: null } } },
        { properties: { grade: { const: null }, reason: str } },
      ],
    },
  ],
} as const;

const GradeError = exact({
  error: { ...str, description: 'what is wrong, naming the range where a value cannot be real' },
  field: { ...str, description: 'the field at fault: values.ergot, region, (sample)' },
});

export const gradeResultSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: fileIn('client', 'grade-result.schema.json'),
  title: 'The answer of grade(record, sample): a result, or an error naming the field at fault',
  oneOf: [GradeAnswer, GradeError],
} as const;
