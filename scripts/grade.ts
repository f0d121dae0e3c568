// npm run grade -- <GRAIN_ID> <sample.json | -> [--site DIR]
// Grades a sample against the record of the published build (SITE_DIR, else ./site; run
// `npm run build` first) with the reference grader, and prints its answer as one JSON object on
// stdout (docs/grading.md). Exit codes: 0 graded (whatever the result), 1 no build to read, 2 a
// usage error, a sample that is not JSON (line and column named) or one that cannot be real (the
// field and its range named).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { grade, parseSample } from '../build/client/grade.ts';
import { grainKey, MANIFEST_FILE, type Manifest, POINTER_FILE, parsePointer } from '../build/site-format.ts';
import type { GrainRecord } from '../build/types.ts';
import { readArgs, usageExit } from './cli.ts';

const spec = {
  command: 'npm run grade --',
  usage: '<GRAIN_ID> <sample.json | -> [--site DIR]',
  help: `Grades a sample (a JSON file, or - for standard input) against the class's record in the published
build, with the reference grader (/client/grade.js), and prints the answer as JSON.

  --site DIR   the published site to read (default: SITE_DIR, else ./site; npm run build makes it)

Exit codes: 0 graded (the answer's result says grade, fallthrough or undetermined); 1 no build to
read; 2 a usage error, a sample that is not JSON, or a value no sample can have.`,
  options: { site: { type: 'string' } },
  positionals: true,
} as const;

function loadRecord(site: string, grainId: string): GrainRecord | number {
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
  if (!canonical) usageExit(spec, `unknown grain id "${grainId}"; the build has ${manifest.grain_ids.join(', ')}`);
  const body = manifest.bodies[manifest.routes[grainKey(canonical)]!]!;
  return JSON.parse(readFileSync(join(dir, body.identity.file), 'utf8')) as GrainRecord;
}

function main(): number {
  const { values, positionals } = readArgs(spec);
  const [grainId, samplePath] = positionals;
  if (!grainId || !samplePath || positionals.length > 2) usageExit(spec, 'give a grain id and a sample file (or -)');
  const record = loadRecord(resolve(values.site ?? process.env.SITE_DIR ?? 'site'), grainId);
  if (typeof record === 'number') return record;
  const name = samplePath === '-' ? 'the sample on standard input' : `the sample ${samplePath}`;
  let text: string;
  try {
    text = readFileSync(samplePath === '-' ? 0 : samplePath, 'utf8');
  } catch {
    console.error(`${name} cannot be read`);
    return 2;
  }
  const parsed = parseSample(text);
  if ('error' in parsed) {
    console.error(`${name} is ${parsed.error}`);
    return 2;
  }
  const result = grade(record, parsed.sample);
  if ('error' in result) {
    console.error(`the sample is not valid: ${result.field}: ${result.error}`);
    return 2;
  }
  console.log(JSON.stringify(result));
  return 0;
}

process.exitCode = main();
