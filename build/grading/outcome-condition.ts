// A fall-through outcome's condition, "<= 2.5%" or "> 10%" (docs/grading.md, What the records say about outcomes): one
// grammar for the editors' schema (schema/source.ts), the build's check of the outcomes
// (outcomes.ts) and the grader, which picks the outcomes a value meets (grade.ts).

/** The grammar, as the JSON Schema pattern editors' files are checked against. */
export const CONDITION_PATTERN = '^(<=|<|>=|>) \\d+(\\.\\d+)?%$';
const CONDITION = new RegExp(CONDITION_PATTERN);

export interface Condition {
  op: '<=' | '<' | '>=' | '>';
  bound: number;
}

/** "<= 2.5%" → its comparison and bound; null for a text the grammar does not hold. */
export function parseCondition(text: string): Condition | null {
  const m = CONDITION.exec(text);
  return m ? { op: m[1] as Condition['op'], bound: Number(text.slice(m[1]!.length + 1, -1)) } : null;
}

/** Whether `value` meets the condition (false for a text the grammar does not hold). */
export function meetsCondition(value: number, text: string): boolean {
  const c = parseCondition(text);
  if (!c) return false;
  const { op, bound } = c;
  return op === '<=' ? value <= bound : op === '<' ? value < bound : op === '>=' ? value >= bound : value > bound;
}
