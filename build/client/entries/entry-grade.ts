// grain-tables-client/grade: the reference grader and explain (docs/grading.md).
export {
  explain,
  type GradeError,
  type GradeResult,
  grade,
  type Limiting,
  type Outcome,
  parseSample,
  type Sample,
} from '../../grading/grade.ts';
