// The client package's version (semver: a new field read is a minor, a changed signature a major)
// and the schema_version of the bodies it reads (docs/sync.md, The client package).
import { SCHEMA_VERSION as SERVED } from '../site-format.ts';

export const CLIENT_VERSION = '1.0.0';
/** The bodies' schema_version this version reads. */
export const SCHEMA_VERSION = SERVED;
