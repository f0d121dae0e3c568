// The published shapes as TypeScript types, derived from their JSON Schemas (schema/responses.ts)
// and the editors' file format from its schema (schema/source.ts): each shape is written once, as
// a schema, and json-schema-to-ts computes the type from it at compile time (no code at run time).
import type { FromSchema } from 'json-schema-to-ts';
import type { GradeAnswerFields } from './schema/grade-result.ts';
import type { responseSchemas } from './schema/responses.ts';
import type { changelogFileSchema, grainFileSchema } from './schema/source.ts';

type Response<K extends keyof typeof responseSchemas> = FromSchema<(typeof responseSchemas)[K]>;

export type Threshold = Response<'Threshold'>;
export type ValueType = Threshold['value_type'];
export type FallthroughOutcome = Response<'FallthroughOutcome'>;
export type OutcomeKind = FallthroughOutcome['kind'];
export type Factor = Response<'Factor'>;
export type Direction = Factor['threshold_direction'];
export type GrainSummary = Response<'GrainSummary'>;
/** A grain record as the build compiles it; published, schema_version goes in front (compile/published.ts). */
export type CompiledRecord = Omit<GrainRecord, 'schema_version'>;
export type ChangelogEntry = Response<'ChangelogEntry'>;
/** The bodies of the three data endpoints, as served. */
export type GrainList = Response<'GrainList'>;
/** A grain record exactly as GET /api/grains/{grain_id} returns it. */
export type GrainRecord = Response<'GrainRecord'>;
export type Changelog = Response<'Changelog'>;
export type Change = Response<'ChangelogChange'>;
/** Every record and the whole changelog in one body (GET /api/snapshot). */
export type Snapshot = Response<'Snapshot'>;
/** An error's body: a sentence, the status and a stable code. */
export type ErrorBody = Response<'Error'>;

/** The grader's answer (build/grading/grade.ts). */
export type GradeResult = FromSchema<typeof GradeAnswerFields>;

/** A grain file as an editor writes it (defaults omitted; cells are read by cells.ts). */
export type SourceGrain = FromSchema<typeof grainFileSchema>;
export type SourceFactor = SourceGrain['factor_groups'][number]['factors'][number];
/** A changelog entry as dataset/changelog.yaml holds it (`changes` absent on entries older than it). */
export type SourceEntry = FromSchema<typeof changelogFileSchema>['entries'][number];
