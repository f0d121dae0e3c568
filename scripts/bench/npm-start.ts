// What `npm start` runs, read from a checkout's package.json: the node options it sets for the
// gateway (its young generation: docs/operations.md, "What an instance needs") and the script, so
// a bench starts each checkout's gateway exactly as npm start would, options included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** node's arguments in `dir`'s start script (`exec node <options> scripts/start.mjs`). */
export function npmStartArgs(dir: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.trim().split(/\s+/);
  const at = words.indexOf('node');
  if (at < 0 || words.at(-1) !== 'scripts/start.mjs')
    throw new Error(`npm start in ${dir} does not run node scripts/start.mjs`);
  return words.slice(at + 1);
}
