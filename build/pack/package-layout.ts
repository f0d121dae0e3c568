// Where the client package's parts are (docs/sync.md, The client package): its entries, each with
// the bundle it becomes and the export path that names it, written once here for the pack and for
// the declarations; the committed declarations' folder; the README. The entries, the README and
// the declarations are in build/client/, the package's folder; the tools that pack them, here.

import { basename } from 'node:path';

const CLIENT_DIR = 'build/client';

/** Bundle name → its entry (`dist/<name>.js` in the package), and the export path naming it; the bin has none. */
export const PACKAGE_ENTRIES = {
  index: { entry: `${CLIENT_DIR}/entries/entry-client.ts`, exportPath: '.' },
  grade: { entry: `${CLIENT_DIR}/entries/entry-grade.ts`, exportPath: './grade' },
  sync: { entry: `${CLIENT_DIR}/entries/entry-sync.ts`, exportPath: './sync' },
  cli: { entry: `${CLIENT_DIR}/entries/entry-bin.ts`, exportPath: null },
} as const;

export type BundleName = keyof typeof PACKAGE_ENTRIES;

/** The entries an export path names, whose declarations the package carries, in the exports' order. */
export const declaredEntries = (): { bundle: BundleName; exportPath: string; entry: string }[] =>
  Object.entries(PACKAGE_ENTRIES).flatMap(([bundle, { entry, exportPath }]) =>
    exportPath === null ? [] : [{ bundle: bundle as BundleName, exportPath, entry }],
  );

/** An entry's declaration in the package: types/ is flat, each file by its own name (declarations.ts). */
export const flatDeclaration = (entry: string) => basename(entry).replace(/\.ts$/, '.d.ts');

/** The declarations, written by `npm run client:types` and committed. */
export const TYPES_DIR = `${CLIENT_DIR}/types`;
/** The client developer's README, the package's own. */
export const README = `${CLIENT_DIR}/README.md`;
