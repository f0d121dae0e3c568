// Content-coding and validator matching. Results for an Accept-Encoding value are cached (clients
// send a handful of distinct values), bounded so odd values cannot grow it.
import type { Resource, Variant } from './site.ts';

type Choice = 'br' | 'gzip' | 'identity';
const choices = new Map<string, Choice>();
const MAX_CACHED = 256;

function parseAcceptEncoding(value: string): Choice {
  let best: Choice = 'identity';
  let bestQ = 0;
  for (const part of value.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    let q = 1;
    for (const p of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p);
      if (m) q = Number(m[1]);
    }
    const candidates: Choice[] = name === '*' ? ['br', 'gzip'] : name === 'br' || name === 'gzip' ? [name] : [];
    for (const c of candidates) {
      // higher q wins; on a tie brotli (smaller) wins
      if (q > bestQ || (q === bestQ && q > 0 && c === 'br')) {
        best = c;
        bestQ = q;
      }
    }
  }
  // identity is always available: a client refusing it too gets it rather than a 406
  return bestQ > 0 ? best : 'identity';
}

export function chooseVariant(resource: Resource, acceptEncoding: string | string[] | undefined): Variant {
  if (!acceptEncoding) return resource.identity;
  const value = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  let choice = choices.get(value);
  if (choice === undefined) {
    choice = value.length > 512 ? 'identity' : parseAcceptEncoding(value);
    if (choices.size >= MAX_CACHED) choices.clear();
    choices.set(value, choice);
  }
  return (choice === 'br' ? resource.br : choice === 'gzip' ? resource.gzip : undefined) ?? resource.identity;
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): W/ prefixes are ignored. */
export function noneMatch(header: string | string[] | undefined, resource: Resource): boolean {
  if (!header) return false;
  // what a syncing client sends: the one ETag it was given, as it was given
  if (typeof header === 'string' && resource.etags.has(header)) return true;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  if (value.length > 4096) return false;
  for (const raw of value.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (resource.etags.has(tag)) return true;
  }
  return false;
}
