// grain-tables-client/sync: keep a copy of the tables in a folder, in one request (docs/sync.md). Node only.
export { SYNC_FILES, SyncError, type SyncOptions, type SyncSummary, snapshotFiles, syncMirror } from '../sync.ts';
