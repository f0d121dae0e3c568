// A grain summary from its record: the list's element (GET /api/grains), made the same way by the
// build and by a sync that derives the list from the snapshot, so both give the same bytes.
import type { CompiledRecord, GrainSummary } from './types.ts';

export const summaryOf = (g: CompiledRecord): GrainSummary => ({
  grain_id: g.grain_id,
  grain_name: g.grain_name,
  kind: g.kind,
  region: g.region,
  use_class: g.use_class,
  effective_crop_year: g.effective_crop_year,
  crop_years: g.crop_years,
  coverage_status: g.coverage_status,
  grades: g.grades,
});
