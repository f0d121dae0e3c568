// Each data body that is a TUF target (site-format.ts, isTargetRoute) is published under its target
// path too, `/tuf/targets/grains/{sha256}.CWRS.json`: the same bytes, stored once, behind the same
// key and limit (docs/operations.md, "Signed editions"). The path holds the body's SHA-256, so the
// build stays a function of the dataset; the signed metadata that lists them is written at publish.
import { createHash } from 'node:crypto';
import { isTargetRoute, tufTargetKey } from '../site-format.ts';

type Keyed = readonly [readonly string[], string | Buffer];

export function* withTargetKeys(bodies: Iterable<Keyed>): Generator<Keyed> {
  for (const [keys, body] of bodies) {
    const targets = keys.filter(isTargetRoute);
    if (!targets.length) {
      yield [keys, body];
      continue;
    }
    const sha256 = createHash('sha256').update(body).digest('hex');
    yield [[...keys, ...targets.map((route) => tufTargetKey(route, sha256))], body];
  }
}
