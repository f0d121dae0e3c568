// The types are derived from the JSON Schemas (build/types.ts), and `npm test` type-checks this
// file first (tsc --noEmit): the type-level checks below are the test, and a wrong derivation fails
// the type check before any test runs. A threshold's value is a number exactly when its value_type
// is numeric (docs/contract.md, the Threshold schema), and a record's fields are exactly the schema's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Changelog, Client } from '../build/client/api.ts';
import type { ChangelogEntry, GrainRecord, Threshold } from '../build/types.ts';

type ValueOf<K extends Threshold['value_type']> = Extract<Threshold, { value_type: K }>['value'];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Each element's type is `true` only when the derivation holds; `false` cannot be assigned `true`. */
export const checks: [
  Same<ValueOf<'numeric'>, number>,
  Same<ValueOf<'qualitative'>, string>,
  Same<ValueOf<'qualitative_judgment'>, string>,
  Same<ValueOf<'no_limit'>, null>,
  Same<ValueOf<'not_applicable'>, null>,
  Same<Extract<Threshold, { value_type: 'numeric' }>['decimals'], number>,
  Same<Changelog['entries'][number], ChangelogEntry>,
  Same<Awaited<ReturnType<Client['getGrain']>>['body'], GrainRecord>,
] = [true, true, true, true, true, true, true, true];

describe('types derived from the schemas', () => {
  it('narrow a threshold by its value_type', () => {
    const t = JSON.parse('{"value_type":"numeric","value":0.1,"decimals":2}') as Threshold;
    const value: number | null = t.value_type === 'numeric' ? t.value : null;
    assert.equal(value, 0.1);
    // @ts-expect-error a record has no field the schema does not list
    const extra: GrainRecord['not_a_field'] = undefined;
    assert.equal(extra, undefined);
  });
});
