// npm run lint:openapi (part of npm run lint): the OpenAPI document as the gateway serves it (the
// build's, its origin slot filled as gateway/site.ts fills it), checked by Redocly
// (recommended-strict: every warning is an error) and Spectral (spectral:oas, failing on
// warnings), so validators and generated clients accept it as is.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOpenApi } from '../build/compile/openapi.ts';
import { loadDataset } from '../build/load/load.ts';
import { fillSlots, ORIGIN_PLACEHOLDER, TEMPLATE_SLOT } from '../build/site-format.ts';
import { createSchemaChecks } from '../build/validate/schema-errors.ts';
import { formatError, validateDataset } from '../build/validate/validate.ts';

const root = resolve(import.meta.dirname, '..');
const { dataset, errors } = validateDataset(loadDataset(join(root, 'dataset')), createSchemaChecks());
if (!dataset) {
  for (const e of errors) console.error(formatError(e));
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'grain-openapi-'));
const file = join(dir, 'openapi.json');
const built = JSON.stringify(buildOpenApi(dataset));
writeFileSync(file, fillSlots(built.split(TEMPLATE_SLOT), { origin: ORIGIN_PLACEHOLDER }));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const runs: [string, string[]][] = [
  ['Redocly', [bin('redocly'), 'lint', '--config', join(root, 'redocly.yaml'), file]],
  ['Spectral', [bin('spectral'), 'lint', '--ruleset', join(root, '.spectral.yaml'), '--fail-severity', 'warn', file]],
];
let failed = false;
for (const [name, [cmd, ...args]] of runs) {
  const r = spawnSync(cmd!, args, { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' } });
  if (r.status !== 0) {
    failed = true;
    console.error(`${name} found problems in the OpenAPI document:\n${r.stdout}${r.stderr}`);
  } else console.log(`${name}: the OpenAPI document passes, no error and no warning`);
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
