// The editors' files against their JSON Schemas (schema/source.ts), with ajv's errors said in
// words an editor understands and located at the offending field (file, line, column).
import { Ajv, type ErrorObject } from 'ajv';
import type { DatasetError } from '../load/dataset-error.ts';
import { errorAt, type LoadedFile, type Path } from '../load/load.ts';
import { changelogFileSchema, grainFileSchema, indexFileSchema } from '../schema/source.ts';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
export const checkGrain = ajv.compile(grainFileSchema);
export const checkChangelog = ajv.compile(changelogFileSchema);
export const checkIndex = ajv.compile(indexFileSchema);

/** ajv's error in words an editor understands, located at the offending field. */
function fromAjv(file: LoadedFile, e: ErrorObject): DatasetError {
  const path: Path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  let message: string;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      message = `the field "${p.missingProperty}" is missing`;
      break;
    case 'additionalProperties':
      path.push(String(p.additionalProperty));
      message = `unknown field "${p.additionalProperty}" (a misspelling?)`;
      break;
    case 'enum':
      message = `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'pattern':
      message = `must be ${(e.parentSchema as { description?: string })?.description ?? `text matching ${p.pattern}`}`;
      break;
    case 'type':
      message = `must be ${String(p.type).replace(',', ' or ')}${String(p.type) === 'string' ? ' (text)' : ''}`;
      break;
    case 'minItems':
      message = `must list at least ${p.limit}`;
      break;
    case 'minLength':
      message = 'must not be empty';
      break;
    default:
      message = e.message ?? 'is not valid';
  }
  return errorAt(file, path, message);
}

export function schemaErrors(file: LoadedFile, check: ReturnType<typeof ajv.compile>): DatasetError[] {
  if (file.syntaxErrors.length) return file.syntaxErrors;
  return check(file.data) ? [] : (check.errors ?? []).map((e) => fromAjv(file, e));
}
