// grain-tables grade <GRAIN_ID> <sample.json | -> [--site DIR | --copy DIR] [--crop-year YYYY/YY]
// (npm run grade -- … in the service's repository) grades a sample against the class's record,
// read from a copy the sync command keeps or from a published build (SITE_DIR, else ./site), with the reference
// grader, and prints its answer as one JSON object on stdout (docs/grading.md). Exit codes: 0
// graded (whatever the result), 1 no build or copy to read, 2 a usage error, a sample that is
// not JSON (line and column named) or one that cannot be real (the field and its range named).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type CliSpec, readArgs, usageExit } from '../../cli-args.ts';
import { grade, parseSample } from '../../grading/grade.ts';
import { plainBody } from '../../plain-body.ts';
import { type Build, DEFAULT_DIRS, grainKey, grainYearKey, readBuild, yearOfKey } from '../../site-format.ts';
import type { GrainRecord } from '../../types.ts';
import { mirroredYear, SYNC_FILES } from '../sync.ts';

const SPEC = {
  usage: '<GRAIN_ID> <sample.json | -> [--site DIR | --copy DIR] [--crop-year YYYY/YY]',
  help: `Grades a sample (a JSON file, or - for standard input) against the class's record, with the
reference grader (/client/grade.js), and prints the answer as JSON.

  --copy DIR     a copy of the tables that the sync command keeps (its --out folder)
  --site DIR     or the service's own published site (default: SITE_DIR, else ./site)
  --crop-year Y  grade against the table as it stood in crop year Y (2025/26): the site's record of
                 that year, or a copy that sync --crop-year Y keeps

Exit codes: 0 graded (the answer's result says grade, fallthrough or undetermined); 1 no build or
copy to read; 2 a usage error, a sample that is not JSON, or a value no sample can have.`,
  options: { site: { type: 'string' }, copy: { type: 'string' }, 'crop-year': { type: 'string' } },
  positionals: true,
} as const;
type Spec = typeof SPEC & Pick<CliSpec<typeof SPEC.options>, 'command'>;
/** The sync command as the user would type it beside this one: `npm run sync --`, `grain-tables sync`. */
const syncAs = (spec: Spec) => spec.command.replace('grade', 'sync');

function loadRecord(
  spec: Spec,
  site: string,
  /** Whether the site was named (--site, SITE_DIR) rather than the default. */
  named: boolean,
  grainId: string,
  year: string | undefined,
  io: GradeIo,
): GrainRecord | number {
  const read = (path: string) => readFileSync(join(site, path));
  let build: Build;
  try {
    build = readBuild((path) => read(path).toString('utf8'));
  } catch {
    // in a client project (grain-tables grade, no site named) the record comes from a synced copy;
    // npm run build is this repository's
    io.err(
      spec.command.startsWith('grain-tables') && !named
        ? `nothing to grade against: sync a copy first (${syncAs(spec)} --url <base URL> --out tables), ` +
            'then name its folder with --copy tables'
        : `no published build in ${site}: run npm run build first, or read a synced copy with --copy DIR`,
    );
    return 1;
  }
  const { manifest } = build;
  const canonical = manifest.grain_ids.find((id) => id.toUpperCase() === grainId.toUpperCase());
  if (!canonical) usageExit(spec, `unknown grain id "${grainId}"; the build has ${manifest.grain_ids.join(', ')}`);
  const body = plainBody(build, year === undefined ? grainKey(canonical) : grainYearKey(canonical, year), read);
  if (body === null) {
    const years = Object.keys(manifest.routes).flatMap((k) => {
      const y = yearOfKey(k);
      return y?.base === grainKey(canonical) ? [y.year] : [];
    });
    io.err(`${canonical} was not published for the crop year ${year}; the build has it for ${years.join(', ')}`);
    return 1;
  }
  return JSON.parse(body.toString('utf8')) as GrainRecord;
}

/** The record from a folder the sync command keeps: its list names the ids, grains/<ID>.json holds each. */
function loadCopy(
  spec: Spec,
  copy: string,
  grainId: string,
  year: string | undefined,
  io: GradeIo,
): GrainRecord | number {
  let ids: string[];
  try {
    const list = JSON.parse(readFileSync(join(copy, SYNC_FILES.list), 'utf8')) as { grains: { grain_id: string }[] };
    ids = list.grains.map((g) => g.grain_id);
  } catch {
    io.err(`no synced copy in ${copy}: ${syncAs(spec)} --out ${copy} makes one`);
    return 1;
  }
  const held = mirroredYear(copy);
  if ((year ?? null) !== held) {
    const what = (y: string | null) => (y ? `the crop year ${y}` : 'the current tables');
    io.err(`${copy} is a copy of ${what(held)}, not ${what(year ?? null)}: ${syncAs(spec)} --crop-year keeps one`);
    return 1;
  }
  const canonical = ids.find((id) => id.toUpperCase() === grainId.toUpperCase());
  if (!canonical) usageExit(spec, `unknown grain id "${grainId}"; the copy has ${ids.join(', ')}`);
  try {
    return JSON.parse(readFileSync(join(copy, SYNC_FILES.record(canonical)), 'utf8')) as GrainRecord;
  } catch {
    io.err(
      year === undefined
        ? `${copy} has no readable record for ${canonical}: run ${syncAs(spec)} --out ${copy} again`
        : `${copy} has no record of ${canonical} for ${year}: it was not published for that crop year`,
    );
    return 1;
  }
}

/** Where the command reads a sample and writes its answer: the process's, or a test's (in process). */
export interface GradeIo {
  readSample(path: string): string;
  out(line: string): void;
  err(line: string): void;
}
const PROCESS_IO: GradeIo = {
  readSample: (path) => readFileSync(path === '-' ? 0 : path, 'utf8'),
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};

/**
 * The command on its arguments: its exit code. A usage error or --help exits the process (args.ts).
 * `command` is how the user typed it (`grain-tables grade`); `siteDir` the SITE_DIR of the environment.
 */
export function gradeCommand(
  argv: string[],
  opts: { command?: string; siteDir?: string | undefined; io?: GradeIo } = {},
): number {
  const spec: Spec = { ...SPEC, command: opts.command ?? 'grain-tables grade' };
  const io = opts.io ?? PROCESS_IO;
  const { values, positionals } = readArgs(spec, argv);
  const [grainId, samplePath] = positionals;
  if (!grainId || !samplePath || positionals.length > 2) usageExit(spec, 'give a grain id and a sample file (or -)');
  if (values.site !== undefined && values.copy !== undefined) usageExit(spec, 'give --site or --copy, not both');
  const year = values['crop-year'];
  if (year !== undefined && !/^\d{4}\/\d{2}$/.test(year))
    usageExit(spec, `--crop-year must be a crop year written like 2025/26, not "${year}"`);
  const record =
    values.copy !== undefined
      ? loadCopy(spec, resolve(values.copy), grainId, year, io)
      : loadRecord(
          spec,
          resolve(values.site ?? opts.siteDir ?? DEFAULT_DIRS.site),
          Boolean(values.site ?? opts.siteDir),
          grainId,
          year,
          io,
        );
  if (typeof record === 'number') return record;
  const name = samplePath === '-' ? 'the sample on standard input' : `the sample ${samplePath}`;
  let text: string;
  try {
    text = io.readSample(samplePath);
  } catch {
    io.err(`${name} cannot be read`);
    return 2;
  }
  const parsed = parseSample(text);
  if ('error' in parsed) {
    io.err(`${name} is ${parsed.error}`);
    return 2;
  }
  const result = grade(record, parsed.sample);
  if ('error' in result) {
    io.err(`the sample is not valid: ${result.field}: ${result.error}`);
    return 2;
  }
  io.out(JSON.stringify(result));
  return 0;
}
