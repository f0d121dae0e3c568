// Holds an answer against the OpenAPI document: its status is declared on the operation, the
// headers the declaration names are there, and a JSON body validates against the declared schema,
// held to the exact field sets (strictDocument).
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { componentsOf, responseSchemas } from '../../build/schema/responses.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = Record<string, any>;
/** An answer as either helper gives it: over HTTP (gateway.ts) or injected (inject.ts). */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * The document with the build's own schemas in place of the published ones, which are open to
 * additions (build/compile/openapi-open.ts): every body a test validates is held to the exact field sets.
 */
export const strictDocument = (doc: Json): Json => ({
  ...doc,
  components: { ...doc.components, schemas: componentsOf(responseSchemas) },
});

/** ajv holding the document as `openapi.json`, with the formats its schemas name. */
export function openApiAjv(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('uri', /^https?:\/\/\S+$/);
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+\.[^@\s]+$/);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  return ajv;
}

export function responseChecker(doc: Json) {
  const ajv = openApiAjv(strictDocument(doc));
  const templates = Object.keys(doc.paths).map((t) => ({
    t,
    re: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const decode = (r: Answer) => {
    const enc = r.headers['content-encoding'];
    return enc === 'br' ? brotliDecompressSync(r.body) : enc === 'gzip' ? gunzipSync(r.body) : r.body;
  };
  /** The problems of one answer; [] when it is not an operation of the document (pages, 404s, 405s). */
  return function check(method: string, url: string, r: Answer): string[] {
    const path = url.split('?')[0]!;
    const template = templates.find((x) => x.re.test(path))?.t;
    const item = template ? doc.paths[template] : undefined;
    const op = item?.[method.toLowerCase()] ?? (method === 'HEAD' ? item?.get : undefined);
    if (!op) return [];
    const where = `${method} ${url} → ${r.status}`;
    const declared = op.responses[String(r.status)];
    if (!declared) return [`${where}: the status is not declared`];
    const problems: string[] = [];
    for (const h of Object.keys(declared.headers ?? {})) {
      if (r.headers[h.toLowerCase()] === undefined) problems.push(`${where}: no ${h} header`);
    }
    // the body is held against the declaration of its own media type (JSON, or the form's pages)
    const type = String(r.headers['content-type'] ?? '')
      .split(';', 1)[0]!
      .trim();
    if (declared.content && method !== 'HEAD' && r.body.length > 0 && !declared.content[type])
      problems.push(`${where}: Content-Type ${type} is not declared`);
    const ref = declared.content?.[type]?.schema?.$ref as string | undefined;
    if (ref && type === 'application/json' && method !== 'HEAD' && r.body.length > 0) {
      const validate = ajv.getSchema(`openapi.json${ref}`)!;
      if (!validate(JSON.parse(decode(r).toString()))) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    }
    return problems;
  };
}
