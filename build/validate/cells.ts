// The grammar of one threshold cell in a grain file: what an editor may write, and what it means.
// Kept in one place so the importer writes exactly what the build reads back.
import type { Direction, Threshold, ValueType } from '../types.ts';

/** A number as the authority prints it: digits, optionally a point and more digits. */
export const PRINTED_NUMBER = /^\d+(?:\.\d+)?$/;
const WITH_ALT = /^(\d+(?:\.\d+)?) \((\d+(?:\.\d+)?)\)$/;
const NO_LIMIT = /^no (?:limit|minimum|maximum)$/i;
const NOT_APPLICABLE = /^(?:n\/a|not applicable)$/i;

const CELL_KEYS = ['type', 'value', 'value_alt', 'note', 'partial_of', 'partial_key'];

/** The decimals a number was printed with: `0.10` → 2. */
export const decimalsOf = (printed: string) => (printed.includes('.') ? printed.length - printed.indexOf('.') - 1 : 0);

export interface CellContext {
  direction: Direction;
  hasAltUnit: boolean;
  /** The cell's own source text when it is a plain scalar (so `0.10` keeps two decimals). */
  source: (subPath: (string | number)[]) => string | undefined;
}

export type CellResult = { ok: Threshold } | { error: string; at?: (string | number)[] };

interface CellExtra {
  value_alt?: number | null;
  threshold_note?: string | null;
  decimals?: number | null;
  partial?: { of: string[]; key: string } | null;
}

/** Every cell has the same fields; the schema's union ties value to value_type, which readCell keeps. */
const threshold = (value_type: ValueType, value: number | string | null, extra: CellExtra = {}): Threshold =>
  ({
    value_type,
    value,
    value_alt: extra.value_alt ?? null,
    threshold_note: extra.threshold_note ?? null,
    decimals: extra.decimals ?? null,
    partial: extra.partial ?? null,
  }) as Threshold;

/**
 * A partial limit (docs/grading.md): the cell's number limits only some parts of the factor, together
 * ("10%, either alone or in combination with each other, of amber durum and any variety of the
 * class CWSP"). The editor names the parts as printed and the key a sample gives their sum under.
 */
function partialOf(o: {
  partial_of?: unknown;
  partial_key?: unknown;
}): Threshold['partial'] | { error: string; at: string[] } {
  if (o.partial_of === undefined && o.partial_key === undefined) return null;
  const parts = o.partial_of;
  if (!Array.isArray(parts) || !parts.length || parts.some((p) => typeof p !== 'string' || !p.trim())) {
    return { error: 'partial_of lists the parts the limit applies to, as printed', at: ['partial_of'] };
  }
  if (typeof o.partial_key !== 'string' || !/^[a-z][a-z0-9_]*$/.test(o.partial_key)) {
    return { error: "partial_key names the parts' sum in a sample, in lower snake case", at: ['partial_key'] };
  }
  return { of: parts as string[], key: o.partial_key };
}

function readPrintedNumber(ctx: CellContext, at: (string | number)[]): { value: number; decimals: number } | string {
  const text = ctx.source(at);
  if (text === undefined || !PRINTED_NUMBER.test(text)) {
    return (
      'write the number exactly as the authority prints it (digits and a decimal point, e.g. 0.10), ' +
      `not "${text ?? '?'}"`
    );
  }
  return { value: Number(text), decimals: decimalsOf(text) };
}

const normalised = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A bare number: its printed form is read from the source, so its decimals are the authority's. */
function readNumberCell(ctx: CellContext): CellResult {
  const n = readPrintedNumber(ctx, []);
  return typeof n === 'string' ? { error: n } : { ok: threshold('numeric', n.value, { decimals: n.decimals }) };
}

/** Words: "no limit", "n/a", a qualitative factor's standard, or a number with its alternative unit. */
function readTextCell(raw: string, ctx: CellContext): CellResult {
  const text = normalised(raw);
  if (NO_LIMIT.test(text)) return { ok: threshold('no_limit', null) };
  if (NOT_APPLICABLE.test(text)) return { ok: threshold('not_applicable', null) };
  if (ctx.direction === 'qualitative') {
    return text ? { ok: threshold('qualitative', text) } : { error: 'an empty cell: write the standard, or "n/a"' };
  }
  const alt = WITH_ALT.exec(text);
  if (alt && !ctx.hasAltUnit)
    return { error: `"${text}" gives a value in an alternative unit, but the factor has no unit_alt` };
  if (alt)
    return { ok: threshold('numeric', Number(alt[1]), { value_alt: Number(alt[2]), decimals: decimalsOf(alt[1]!) }) };
  return {
    error:
      `cannot read "${text}" as a ${ctx.direction} value: write a number, "no limit", "n/a", ` +
      `{value: <number>, note: <text>} or {type: qualitative_judgment, value: <text>}`,
  };
}

/** A cell written as a mapping (`{value: 0.10, note: …}`). */
interface CellFields {
  type?: ValueType;
  value?: unknown;
  value_alt?: unknown;
  note?: unknown;
  partial_of?: unknown;
  partial_key?: unknown;
}

/** A numeric mapping: the number as printed, its alternative unit if the factor has one, a note, a partial limit. */
function readNumericFields(o: CellFields, ctx: CellContext, extra: CellExtra): CellResult {
  if (typeof o.value !== 'number') return { error: 'a numeric cell needs a number in value', at: ['value'] };
  const n = readPrintedNumber(ctx, ['value']);
  if (typeof n === 'string') return { error: n, at: ['value'] };
  if (o.value_alt === undefined) return { ok: threshold('numeric', n.value, { ...extra, decimals: n.decimals }) };
  if (!ctx.hasAltUnit) return { error: 'value_alt is given, but the factor has no unit_alt', at: ['value_alt'] };
  const a = readPrintedNumber(ctx, ['value_alt']);
  if (typeof a === 'string') return { error: a, at: ['value_alt'] };
  return { ok: threshold('numeric', n.value, { ...extra, decimals: n.decimals, value_alt: a.value }) };
}

/** A mapping of the other types: words with no value, or the text the value is. */
function readWordFields(type: ValueType | undefined, o: CellFields, note: string | null): CellResult {
  switch (type) {
    case 'no_limit':
    case 'not_applicable':
      if (o.value !== undefined)
        return { error: `a ${type} cell has no value; put the printed words in note`, at: ['value'] };
      return { ok: threshold(type, null, { threshold_note: note }) };
    case 'qualitative':
    case 'qualitative_judgment':
      if (typeof o.value !== 'string' || !o.value.trim())
        return { error: `a ${type} cell needs its text in value`, at: ['value'] };
      return { ok: threshold(type, normalised(o.value), { threshold_note: note }) };
    default:
      return {
        error:
          'give the cell a type (numeric, no_limit, not_applicable, qualitative, qualitative_judgment) ' +
          'or a number in value',
      };
  }
}

/** A mapping: its fields checked, then read by its type. */
function readFieldsCell(raw: object, ctx: CellContext): CellResult {
  const unknown = Object.keys(raw).filter((k) => !CELL_KEYS.includes(k));
  if (unknown.length)
    return {
      error: `unknown field "${unknown[0]}" in a cell; a cell may have ${CELL_KEYS.join(', ')}`,
      at: [unknown[0]!],
    };
  const o = raw as CellFields;
  const partial = partialOf(o);
  if (partial && 'error' in partial) return partial;
  if (partial && (o.type ?? 'numeric') !== 'numeric')
    return { error: 'only a numeric cell has a partial limit', at: ['partial_of'] };
  if (o.note !== undefined && (typeof o.note !== 'string' || !o.note.trim()))
    return { error: 'note must be text', at: ['note'] };
  const type = o.type ?? (typeof o.value === 'number' ? 'numeric' : undefined);
  const note = typeof o.note !== 'string' ? null : normalised(o.note);
  return type === 'numeric'
    ? readNumericFields(o, ctx, { threshold_note: note, partial })
    : readWordFields(type, o, note);
}

export function readCell(raw: unknown, ctx: CellContext): CellResult {
  if (typeof raw === 'number') return readNumberCell(ctx);
  if (typeof raw === 'string') return readTextCell(raw, ctx);
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return readFieldsCell(raw, ctx);
  return { error: 'an empty cell: write a number, "no limit", "n/a", or text' };
}

/** How the importer writes an authority cell into a grain file; the inverse of readCell. */
export function cellFromAuthority(
  text: string,
  direction: Direction,
): string | Record<string, string | string[]> | { error: string } {
  if (PRINTED_NUMBER.test(text) || WITH_ALT.test(text) || NO_LIMIT.test(text) || NOT_APPLICABLE.test(text)) return text;
  if (direction === 'qualitative') return text ? text : { error: 'an empty cell' };
  // "No limit – maximum 50% broken": no limit on the whole, a partial limit on one part (docs/grading.md)
  const partial = /^no limit\s*[-–—]\s*maximum (\d+(?:\.\d+)?)% ([a-z ]+)$/i.exec(text);
  if (partial) {
    const part = partial[2]!.trim();
    return { value: partial[1]!, note: text, partial_of: [part], partial_key: part.toLowerCase().replace(/\W+/g, '_') };
  }
  const lead = /^(\d+(?:\.\d+)?)%?,? \S/.exec(text);
  if (lead) return { value: lead[1]!, note: text };
  if (/^no limit\b/i.test(text)) return { type: 'no_limit', note: text };
  if (/^\d/.test(text) || text === '') return { error: `cannot read the number in "${text}"` };
  return { type: 'qualitative_judgment', value: text };
}
