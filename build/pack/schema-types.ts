// The client package's shapes as TypeScript declarations, written from the same JSON Schemas the
// service validates its bodies with (build/schema/): one named type per named schema, a part that
// is itself named referred to by its name, and each schema's description as the doc comment. Only
// what the service's schemas use is read: const, enum, type (one or a list), properties with
// additionalProperties false or a schema, items, oneOf; a keyword that only validates (pattern,
// minimum, …) changes no type. A keyword that would shape one and is not read is an error.

type Schema = Readonly<Record<string, unknown>>;

const literal = (v: unknown) => JSON.stringify(v);
/** Keywords that would shape a type and are not read here: meeting one is an error, never a guess. */
const UNREAD = new Set([
  'allOf',
  'anyOf',
  'not',
  'if',
  '$ref',
  'patternProperties',
  'prefixItems',
  'unevaluatedProperties',
  'dependentSchemas',
]);

/** `named`: type name → schema, in the order written. Returns the declarations' text. */
export function schemaDeclarations(named: ReadonlyArray<readonly [string, Schema]>): string {
  const names = new Map<unknown, string>(named.map(([name, s]) => [s, name]));
  const typeOf = (s: Schema, indent: string, top = false): string => {
    if (!top && names.has(s)) return names.get(s)!;
    for (const key of Object.keys(s)) if (UNREAD.has(key)) throw new Error(`schema keyword ${key} is not read`);
    if ('const' in s) return literal(s.const);
    if (Array.isArray(s.enum)) return s.enum.map(literal).join(' | ');
    if (Array.isArray(s.oneOf)) {
      const { oneOf, description: _, discriminator: __, ...rest } = s;
      const base = Object.keys(rest).length ? typeOf(rest, indent) : null;
      const union = (oneOf as Schema[]).map((o) => typeOf(o, indent)).join(' | ');
      return base ? `${base} & (${union})` : union;
    }
    const types = Array.isArray(s.type) ? (s.type as string[]) : s.type === undefined ? [] : [s.type as string];
    if (!types.length) return 'unknown';
    return types.map((t) => single(t, s, indent)).join(' | ');
  };
  const single = (t: string, s: Schema, indent: string): string => {
    if (t === 'string') return 'string';
    if (t === 'integer' || t === 'number') return 'number';
    if (t === 'boolean') return 'boolean';
    if (t === 'null') return 'null';
    if (t === 'array') {
      const item = s.items ? typeOf(s.items as Schema, indent) : 'unknown';
      return /[|&]/.test(item) && !names.has(s.items) ? `(${item})[]` : `${item}[]`;
    }
    if (t === 'object') return objectOf(s, indent);
    throw new Error(`schema type ${t} is not read`);
  };
  const objectOf = (s: Schema, indent: string): string => {
    const inner = `${indent}  `;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set((s.required ?? []) as string[]);
    const lines = Object.entries(props).map(
      ([k, v]) => `${doc(v, inner)}${inner}${k}${required.has(k) ? '' : '?'}: ${typeOf(v, inner)};\n`,
    );
    const extra = s.additionalProperties;
    if (extra && typeof extra === 'object') lines.push(`${inner}[key: string]: ${typeOf(extra as Schema, inner)};\n`);
    else if (extra !== false) lines.push(`${inner}[key: string]: unknown;\n`);
    return `{\n${lines.join('')}${indent}}`;
  };
  const doc = (s: Schema, indent: string) =>
    typeof s.description === 'string' && !names.has(s)
      ? `${indent}/** ${s.description.replace(/\*\//g, '*\\/')} */\n`
      : '';
  return named
    .map(([name, s]) => {
      const body = typeOf(s, '', true);
      const comment = doc({ description: s.description }, '');
      return body.startsWith('{\n')
        ? `${comment}export interface ${name} ${body}\n`
        : `${comment}export type ${name} = ${body};\n`;
    })
    .join('\n');
}
