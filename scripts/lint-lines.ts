// npm run lint, its last part: no line of TypeScript (or of the plain JavaScript the build ships)
// over 120 characters, and no function in build/, gateway/ or scripts/ over 100 lines
// (long-functions.ts). Biome's formatter wraps code at that width but leaves a long string or
// comment as it is; this says where one is. Data files (JSON, YAML) and prose are not held to it.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TYPES_DIR } from '../build/pack/package-layout.ts';
import { FUNCTION_DIRS, longFunctionsIn, MAX_FUNCTION_LINES } from './long-functions.ts';

export const MAX_LINE = 120;

/** The lines over MAX_LINE characters of each file, as `file:line (length)`. */
export function longLines(files: string[], read = (f: string) => readFileSync(f, 'utf8')): string[] {
  return files.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, i) => {
        const length = [...line].length;
        return length > MAX_LINE ? [`${file}:${i + 1} (${length} characters)`] : [];
      }),
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs', '*.js'])
    .toString()
    .split('\n')
    // generated declarations are the compiler's lines (build/pack/declarations.ts)
    .filter((f) => f && !f.startsWith('node_modules/') && !f.startsWith(`${TYPES_DIR}/`));
  const long = longLines(files);
  for (const l of long) console.error(l);
  if (long.length) console.error(`${long.length} line(s) over ${MAX_LINE} characters: wrap the string or the comment.`);
  const held = files.filter((f) => FUNCTION_DIRS.some((dir) => f.startsWith(dir)));
  const longFunctions = held.flatMap((f) => longFunctionsIn(f, readFileSync(f, 'utf8')));
  for (const l of longFunctions) console.error(l);
  if (longFunctions.length)
    console.error(
      `${longFunctions.length} function(s) over ${MAX_FUNCTION_LINES} lines: split by meaning (small named ` +
        'functions, one concern each; data as data).',
    );
  if (long.length || longFunctions.length) process.exit(1);
  console.log(
    `Lines: ${files.length} files, none over ${MAX_LINE} characters; ` +
      `${held.length} in ${FUNCTION_DIRS.join(', ')}, no function over ${MAX_FUNCTION_LINES} lines`,
  );
}
