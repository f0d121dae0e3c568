// What the suite must reach (docs/grading.md "Checking a port"), measured against the records: every
// class with five cases or more, all three results, and each footnote rule, floor rule, track,
// region and colour a record holds, a value exactly at a limit and one decimal past one. The
// tests assert the list of gaps is empty; a new rule in the data without a case is a gap.

import type { SuiteGroup } from '../../build/grading/grade-suite/define.ts';
import type { CompiledRecord } from '../../build/types.ts';

export function suiteGaps(suite: SuiteGroup[], records: CompiledRecord[]): string[] {
  const gaps: string[] = [];
  const results = new Set(suite.flatMap((g) => g.cases.map((c) => c.expected.result)));
  for (const r of ['grade', 'fallthrough', 'undetermined'] as const) if (!results.has(r)) gaps.push(`result ${r}`);
  for (const rec of records) {
    const cases = suite.filter((g) => g.grain_id === rec.grain_id).flatMap((g) => g.cases);
    const id = rec.grain_id;
    if (cases.length < 5) gaps.push(`${id}: ${cases.length} cases`);
    const factors = rec.factor_groups.flatMap((g) => g.factors);
    const has = (test: (c: (typeof cases)[number]) => boolean) => cases.some(test);
    for (const rule of rec.grade_floor_rules) {
      const on = (c: (typeof cases)[number]) => Object.values(c.sample.accounts ?? {}).includes(rule.account);
      if (!has(on)) gaps.push(`${id}: floor rule ${rule.account}`);
    }
    for (const rule of rec.footnote_rules) {
      const reached = has((c) => {
        const s = c.sample;
        if (rule.effect === 'sample_name_suffix') return s.track === rule.track && typeof c.expected.note === 'string';
        if (rule.effect === 'not_applicable_for_colour')
          return s.colour === rule.colour && rule.factor_ids.some((f) => s.values?.[f] !== undefined);
        return rule.factor_ids.some((f) => s.values?.[f]) && Boolean(s.values?.[rule.total_id ?? '']);
      });
      if (!reached) gaps.push(`${id}: footnote ${rule.footnote} (${rule.effect})`);
    }
    for (const t of rec.variety_tracks ?? [])
      if (!has((c) => c.sample.track === t.track_id)) gaps.push(`${id}: track ${t.track_id}`);
    const regional = factors.some((f) => f.fallthrough_outcomes?.some((o) => o.region !== null));
    for (const region of regional ? ['western', 'eastern'] : [])
      if (!has((c) => c.sample.region === region)) gaps.push(`${id}: region ${region}`);
    for (const colour of rec.colours ?? [])
      if (!has((c) => c.sample.colour === colour || Boolean(c.expected.grade?.endsWith(` ${colour}`))))
        gaps.push(`${id}: colour ${colour}`);
    const limits = factors.flatMap((f) =>
      Object.values(f.thresholds).flatMap((t) => (t.value_type === 'numeric' ? [{ f, t }] : [])),
    );
    const at = (past: boolean) =>
      has((c) =>
        limits.some(({ f, t }) => {
          const v = c.sample.values?.[f.factor_id];
          if (v === undefined) return false;
          const step = 10 ** -(t.decimals ?? 0) * (f.threshold_direction === 'minimum' ? -1 : 1);
          const target = past ? Number(((t.value as number) + step).toFixed(6)) : t.value;
          return v === target && (past || v !== 0);
        }),
      );
    if (!at(false)) gaps.push(`${id}: no value exactly at a limit`);
    if (!at(true)) gaps.push(`${id}: no value one decimal past a limit`);
  }
  return gaps;
}
