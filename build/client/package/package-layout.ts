// Where the client package's parts are (docs/sync.md, The client package): its entries, and the
// committed declarations' folder. Read by the pack (production) and by declarations.ts (development).

/** Export path → the entry whose declarations it names. */
export const DECLARED_ENTRIES = {
  '.': 'build/client/package/entry-client.ts',
  './grade': 'build/client/package/entry-grade.ts',
  './sync': 'build/client/package/entry-sync.ts',
} as const;
/** The declarations, written by `npm run client:types` and committed. */
export const TYPES_DIR = 'build/client/package/types';
