// npm run lint, its last part: no line of TypeScript (or of the plain JavaScript the build ships)
// over 120 characters. Biome's formatter wraps code at that width but leaves a long string or
// comment as it is; this says where one is. Data files (JSON, YAML) and prose are not held to it.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TYPES_DIR } from '../build/pack/package-layout.ts';

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
  if (long.length) {
    console.error(`${long.length} line(s) over ${MAX_LINE} characters: wrap the string or the comment.`);
    process.exit(1);
  }
  console.log(`Lines: ${files.length} files, none over ${MAX_LINE} characters`);
}
