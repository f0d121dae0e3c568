// npm run grade -- <GRAIN_ID> <sample.json | -> [--site DIR]
// Grades a sample against the record of the published build (SITE_DIR, else ./site; run
// `npm run build` first) with the reference grader, and prints one JSON object on stdout.
// Exit codes: 0 graded (whatever the result), 1 no build to read, 2 a usage error or a malformed
// sample (the message names the field).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { grade } from '../build/client/grade.ts';
import { grainKey, MANIFEST_FILE, type Manifest, POINTER_FILE, parsePointer } from '../build/site-format.ts';
import type { GrainRecord } from '../build/types.ts';

const USAGE = 'usage: npm run grade -- <GRAIN_ID> <sample.json | -> [--site DIR]';

function main(): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [grainId, samplePath] = positionals;
  if (!grainId || !samplePath || positionals.length > 2) {
    console.error(USAGE);
    return 2;
  }
  const site = resolve(values.site ?? process.env.SITE_DIR ?? 'site');
  let manifest: Manifest;
  let dir: string;
  try {
    const pointer = parsePointer(readFileSync(join(site, POINTER_FILE), 'utf8'));
    dir = join(site, pointer.dir);
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
  } catch {
    console.error(`no published build in ${site}: run npm run build first`);
    return 1;
  }
  const canonical = manifest.grain_ids.find((id) => id.toUpperCase() === grainId.toUpperCase());
  if (!canonical) {
    console.error(`unknown grain id "${grainId}"; the build has ${manifest.grain_ids.join(', ')}`);
    return 2;
  }
  const body = manifest.bodies[manifest.routes[grainKey(canonical)]!]!;
  const record = JSON.parse(readFileSync(join(dir, body.identity.file), 'utf8')) as GrainRecord;
  let sample: unknown;
  try {
    sample = JSON.parse(readFileSync(samplePath === '-' ? 0 : samplePath, 'utf8'));
  } catch (err) {
    const why = err instanceof SyntaxError ? 'is not JSON' : 'cannot be read';
    console.error(`the sample ${samplePath === '-' ? 'on standard input' : samplePath} ${why}`);
    return 2;
  }
  const result = grade(record, sample);
  if ('error' in result) {
    console.error(`the sample is not valid: ${result.field}: ${result.error}`);
    return 2;
  }
  console.log(JSON.stringify(result));
  return 0;
}

const parse = () => parseArgs({ options: { site: { type: 'string' } }, allowPositionals: true });

process.exitCode = main();
