// npm run client:types: writes the client package's declarations (build/pack/declarations.ts)
// into build/client/types/, replacing what was there. Run it after changing build/client/, build/grading/ or
// a response schema, and commit the result; the tests fail while they are stale.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readArgs } from '../build/cli-args.ts';
import { clientDeclarations } from '../build/pack/declarations.ts';
import { TYPES_DIR } from '../build/pack/package-layout.ts';
import { projectRoot } from '../build/project-root.mjs';

readArgs({
  command: 'npm run client:types --',
  usage: '',
  help: `Writes the client package's declarations into ${TYPES_DIR}/ from the sources, replacing what is
there. Run it after changing build/client/, build/grading/ or a response schema, and commit the result.`,
  options: {},
});
const root = projectRoot();
const files = clientDeclarations();
const dir = join(root, TYPES_DIR);
rmSync(dir, { recursive: true, force: true });
for (const [file, text] of files) {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}
console.log(`wrote ${files.size} declaration files into ${TYPES_DIR}`);
