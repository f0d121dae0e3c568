// npm run rollback [-- <build_id>] [--site DIR]: lists the builds a site keeps, or points it back
// at one of them (docs/operations.md, "Rolling back"). A running gateway swaps it in, as it does a
// new build; clients see the earlier records and changelog, and npm run sync brings them.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { keptBuilds, rollBack } from '../build/publish/publish.ts';
import { DEFAULT_DIRS, pointerFor, readBuild } from '../build/site-format.ts';
import { publishEdition } from '../build/tuf/publish-edition.ts';

const spec = {
  command: 'npm run rollback --',
  usage: '[<build_id>] [--site DIR] [--state DIR]',
  help: `
Without a build id: lists the whole builds the site keeps (the live one and the two before it),
newest first, with the dataset version each serves. With one: points the site's current.json at
that build (atomically); a running gateway serves it within its poll interval. Its signed edition
is published again with higher versions, so clients take the rollback as a new edition.

  --site DIR   the published site (default: SITE_DIR, else site)
  --state DIR  the signing keys, in tuf-keys/ (default: STATE_DIR, else var)

Exit codes: 0 done, 1 no such build kept, 2 usage.`,
  options: {
    site: { type: 'string', default: process.env.SITE_DIR || DEFAULT_DIRS.site },
    state: { type: 'string', default: process.env.STATE_DIR || DEFAULT_DIRS.state },
  },
  positionals: true,
} as const;

const { values, positionals } = readArgs(spec);
if (positionals.length > 1) usageExit(spec, `one build id at most, not ${positionals.length}`);
const site = resolve(values.site);
const [id] = positionals;
if (id === undefined) {
  const kept = keptBuilds(site);
  if (!kept.length) console.log(`no build is kept in ${site}`);
  for (const b of kept) console.log(`${b.live ? '*' : ' '} ${b.build_id}  ${b.written}  dataset ${b.dataset_version}`);
  process.exit(0);
}
if (!/^[0-9a-f]{16}$/.test(id)) usageExit(spec, `a build id is 16 hex digits, not "${id}"`);
try {
  if (!keptBuilds(site).some((b) => b.build_id === id)) rollBack(site, id); // says that it is not kept
  const { manifest } = readBuild((path) => readFileSync(join(site, path), 'utf8'), pointerFor(id));
  // signed first: keys that cannot sign the edition leave the site as it was (docs/operations.md, "Signed editions")
  const edition = publishEdition(manifest, { siteDir: site, stateDir: resolve(values.state), now: Date.now() });
  const b = rollBack(site, id);
  console.log(`${site} now serves build ${b.build_id} (dataset ${b.dataset_version}), written ${b.written}`);
  console.log(`signed edition: targets version ${edition.versions.targets}`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
