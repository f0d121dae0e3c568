// A table page's cells (docs/contract.md, The front door): each threshold as the authority prints
// it, and what a change did to it. A number is printed with the authority's own decimals (0.10 stays
// 0.10) and carried in a <data> element, so a program reads the record's number back from the page.
import { printedValue } from '../grading/printed.ts';
import type { Change, Factor, Threshold } from '../types.ts';
import { namesCell } from './class-changes.ts';
import { type Html, html } from './html.ts';

/** The words a cell without a number shows when the authority gives none of its own (its note). */
const WORDS: Record<Threshold['value_type'], string> = {
  numeric: '',
  no_limit: 'No limit',
  not_applicable: 'Not applicable',
  qualitative: '',
  qualitative_judgment: '',
};

/**
 * A threshold's text: a number (with the alternative unit's in brackets, as the authority prints
 * test weight), or the authority's note where it wrote words around the number (a partial limit),
 * or the text standard. `none` when there is no cell.
 */
export function cellText(t: Threshold | null | undefined): Html {
  if (!t) return html`<span class="none">none</span>`;
  if (t.value_type === 'numeric') {
    const shown = t.threshold_note ?? printedValue(t);
    return html`<data value="${t.value}">${shown}</data>`;
  }
  const text = typeof t.value === 'string' ? t.value : (t.threshold_note ?? WORDS[t.value_type]);
  const note =
    typeof t.value === 'string' && t.threshold_note ? html` <span class="note">${t.threshold_note}</span>` : '';
  return html`${text}${note}`;
}

/** A factor's header: its label as printed, then its unit (both units where it has two). */
export function factorHeader(f: Pick<Factor, 'factor_label' | 'unit' | 'unit_alt'>): Html {
  const unit = f.unit_alt ? `${f.unit} (${f.unit_alt})` : f.unit;
  return html`${f.factor_label}${unit && html` <span class="unit">${unit}</span>`}`;
}

/** A cell's old value, from the changes that name it: the whole cell, or its fields as they were. */
export function oldCell(now: Threshold | undefined, changes: Change[]): Threshold | null {
  const whole = changes.find((c) => c.field === null);
  if (whole) return (whole.from as Threshold | null) ?? null;
  const old: Record<string, unknown> = { ...now };
  for (const c of changes) old[c.field!] = c.from;
  return old as Threshold;
}

/** A cell's id in its page, the anchor a link to it names: a grade's column (from 0), or `ft` for the fall-through. */
export const cellAnchor = (factorId: string, column: number | 'ft') => `c-${factorId}-${column}`;

/** The key of a cell in a page: factor and grade, or the factor's fall-through cell (grade null). */
export const cellKey = (factorId: string, grade: string | null) => `${factorId}\u0000${grade ?? ''}`;

/**
 * The changes of one class's cells and fall-through cells that alter what the cell prints, by
 * cellKey; the rest of the changes apart (a threshold's `partial` prints nothing: class-changes.ts).
 */
export function changesByCell(changes: Change[]): { cells: Map<string, Change[]>; other: Change[] } {
  const cells = new Map<string, Change[]>();
  const other: Change[] = [];
  for (const c of changes) {
    if (!namesCell(c)) {
      other.push(c);
      continue;
    }
    const key = cellKey(c.factor_id!, c.grade);
    cells.set(key, [...(cells.get(key) ?? []), c]);
  }
  return { cells, other };
}
