// The editors' files against their JSON Schemas (schema/source.ts), with ajv's errors said in
// words an editor understands and located at the offending field (file, line, column).
import { Ajv, type ErrorObject } from 'ajv';
import type { DatasetError } from '../load/dataset-error.ts';
import { errorAt, type LoadedFile, type Path } from '../load/load.ts';
import { changelogFileSchema, grainFileSchema, indexFileSchema } from '../schema/source.ts';

/** A file against its schema: the errors in an editor's words, and whether they are only unknown fields. */
interface SchemaVerdict {
  errors: DatasetError[];
  /** Every error is an unknown (misspelt) field: the file's values are all readable all the same. */
  onlyUnknownFields: boolean;
}
type SchemaCheck = (file: LoadedFile) => SchemaVerdict;
export interface SchemaChecks {
  grain: SchemaCheck;
  changelog: SchemaCheck;
  index: SchemaCheck;
}

/**
 * The editors' three schemas compiled (ajv compiles each into code, which takes a while): made once
 * by a caller and handed to every validation it runs (build-site.ts, BuildKit).
 */
export function createSchemaChecks(): SchemaChecks {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
  const checkOf = (schema: object): SchemaCheck => {
    const validate = ajv.compile(schema);
    return (file) => {
      if (file.syntaxErrors.length) return { errors: file.syntaxErrors, onlyUnknownFields: false };
      // ajv leaves a call's errors on the function: read here, at once, and never again
      const found = validate(file.data) ? [] : (validate.errors ?? []);
      return {
        errors: found.map((e) => fromAjv(file, e)),
        onlyUnknownFields: found.every((e) => e.keyword === 'additionalProperties'),
      };
    };
  };
  return { grain: checkOf(grainFileSchema), changelog: checkOf(changelogFileSchema), index: checkOf(indexFileSchema) };
}

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
