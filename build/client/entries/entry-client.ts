// grain-tables-client: the typed client and the shapes it returns, derived from the service's JSON
// Schemas (docs/sync.md, The client package).

export type {
  Change,
  Changelog,
  ChangelogEntry,
  ErrorBody,
  Factor,
  FallthroughOutcome,
  GrainList,
  GrainRecord,
  GrainSummary,
  Snapshot,
  Threshold,
} from '../../types.ts';
export {
  ApiError,
  type Client,
  type ClientCache,
  type ClientOptions,
  createClient,
  type ErrorCode,
  type Fetched,
  type RateLimit,
} from '../api.ts';
export { CLIENT_VERSION, SCHEMA_VERSION } from '../version.ts';
