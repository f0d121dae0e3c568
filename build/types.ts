// Shapes of the published JSON (interface.md "Resources and their fields", decisions.md §1).
// The JSON Schemas in schema/responses.ts describe the same shapes for ajv and the OpenAPI document.

export const SCHEMA_VERSION = '1.0';

export type ValueType = 'numeric' | 'no_limit' | 'not_applicable' | 'qualitative' | 'qualitative_judgment';
export type Direction = 'maximum' | 'minimum' | 'qualitative';
export type Region = 'western' | 'eastern';

export interface Threshold {
  value_type: ValueType;
  value: number | string | null;
  value_alt: number | null;
  threshold_note: string | null;
  decimals: number | null;
}

export interface FallthroughCondition {
  condition: string;
  region: Region | null;
  grade: string;
}

export interface Factor {
  factor_id: string;
  factor_label: string;
  unit: string;
  unit_alt: string | null;
  threshold_direction: Direction;
  is_aggregate: boolean;
  aggregates: string[] | null;
  footnote_ref: string | null;
  thresholds: Record<string, Threshold>;
  fallthrough: string | null;
  fallthrough_conditions: FallthroughCondition[] | null;
}

export interface FactorGroup {
  group_id: string;
  group_label: string;
  factors: Factor[];
}

export interface GradeFloorRule {
  account: string;
  floor_grade: string;
  note: string;
}

export interface VarietyTrack {
  track_id: string;
  grades: string[];
}

export interface GrainSummary {
  grain_id: string;
  grain_name: string;
  kind: 'wheat' | 'cereal' | 'oilseed' | 'pulse';
  region: Region | null;
  use_class: 'general_purpose' | 'malting' | 'food' | null;
  effective_crop_year: string;
  coverage_status: 'complete' | 'partial';
  grades: string[];
}

export interface GrainRecord extends GrainSummary {
  variety_tracks: VarietyTrack[] | null;
  colour_modifier: boolean;
  size_modifier: boolean;
  source_url: string;
  last_scraped: string;
  fallthrough_label: string;
  grade_floor_rules: GradeFloorRule[];
  factor_groups: FactorGroup[];
  footnotes: Record<string, string>;
}

export interface ChangelogEntry {
  id: string;
  crop_year: string;
  effective_date: string;
  grain_ids_affected: string[];
  summary: string;
  created_at: string;
}
