// The client package grain-tables-client (docs/sync.md, The client package), packed as npm packs:
// the code of build/client/ bundled by esbuild (one module an entry, shared code in chunks, no
// dependency), the declarations committed in build/client/types/ (declarations.ts), the package's
// README and the project's licence, every file under package/ in a gzipped tar. Every build carries
// it (static-bodies.ts) and `npm run client:pack` writes it to dist/. Deterministic: the same
// sources give the same bytes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildSync } from 'esbuild';
import { CLIENT_VERSION, SCHEMA_VERSION } from '../client/version.ts';
import { projectRoot } from '../project-root.mjs';
import { declaredEntries, flatDeclaration, PACKAGE_ENTRIES, README, TYPES_DIR } from './package-layout.ts';
import { type TarFile, tarGz } from './tar.ts';

export const CLIENT_PACKAGE = 'grain-tables-client';
const declarationOf = (entry: string) => `./types/${flatDeclaration(entry)}`;

function manifest() {
  const exports = Object.fromEntries(
    declaredEntries().map(({ exportPath, entry, bundle }) => [
      exportPath,
      { types: declarationOf(entry), default: `./dist/${bundle}.js` },
    ]),
  );
  return {
    name: CLIENT_PACKAGE,
    version: CLIENT_VERSION,
    description:
      'Typed client, reference grader and one-request sync for the grain grading tables service ' +
      `(schema_version ${SCHEMA_VERSION})`,
    keywords: ['grain', 'grading', 'canadian-grain-commission', 'api-client'],
    license: 'MIT',
    type: 'module',
    engines: { node: '>=20.19' },
    exports: { ...exports, './package.json': './package.json' },
    bin: { 'grain-tables': 'dist/cli.js' },
    files: ['dist', 'types'],
    sideEffects: false,
    grainTables: { schemaVersion: SCHEMA_VERSION },
  };
}

function bundles(): TarFile[] {
  const root = projectRoot();
  const out = buildSync({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(PACKAGE_ENTRIES).map(([name, { entry }]) => [name, entry])),
    outdir: join(root, 'dist/client-package'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    external: ['node:*'],
    target: 'es2022',
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: `// ${CLIENT_PACKAGE} ${CLIENT_VERSION}: generated from the service's build/client/ (MIT).` },
  });
  return out.outputFiles.map((f) => {
    const path = relative(join(root, 'dist/client-package'), f.path);
    return { path: `dist/${path}`, bytes: Buffer.from(f.contents), mode: path === 'cli.js' ? 0o755 : 0o644 };
  });
}

function declarations(): TarFile[] {
  const dir = join(projectRoot(), TYPES_DIR);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const file = join(d.parentPath, d.name);
      return { path: `types/${relative(dir, file)}`, bytes: readFileSync(file) };
    });
}

/** The package's files, by their path inside it. */
function clientPackageFiles(): TarFile[] {
  const root = projectRoot();
  return [
    { path: 'package.json', bytes: Buffer.from(`${JSON.stringify(manifest(), null, 2)}\n`) },
    { path: 'README.md', bytes: readFileSync(join(root, README)) },
    { path: 'LICENSE', bytes: readFileSync(join(root, 'LICENSE')) },
    ...bundles(),
    ...declarations(),
  ];
}

/** The tarball npm installs: every file under package/. */
export const clientTarball = (): Buffer =>
  tarGz(clientPackageFiles().map((f) => ({ ...f, path: `package/${f.path}` })));
