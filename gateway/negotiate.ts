// Content-coding and validator matching. A chooser keeps its results for an Accept-Encoding value
// (clients send a handful of distinct values), bounded so odd values cannot grow it.
import type { Resource, Variant } from './resource.ts';

type Choice = 'br' | 'gzip' | 'identity';
const MAX_CACHED = 256;

/**
 * RFC 9110 §12.5.3: a coding named explicitly takes its own q (q=0: not acceptable), `*` gives its
 * q to the codings not named; the highest q above 0 wins, brotli (smaller) on a tie. Identity is
 * always acceptable unless refused, and even then is sent rather than a 406 (the body exists in no
 * other form the client accepts). `x-gzip` is gzip (RFC 9110 §8.4.1.3), and is answered as gzip.
 */
function parseAcceptEncoding(value: string): Choice {
  const named = new Map<string, number>();
  let star: number | undefined;
  for (const part of value.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    let q = 1;
    for (const p of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p);
      if (m) q = Number(m[1]);
    }
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (coding === '*') star = q;
    else if (coding) named.set(coding, Math.max(q, named.get(coding) ?? 0));
  }
  const qOf = (c: 'br' | 'gzip') => named.get(c) ?? star ?? 0;
  const [br, gzip] = [qOf('br'), qOf('gzip')];
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : 'identity';
}

export type ChooseVariant = (resource: Resource, acceptEncoding: string | string[] | undefined) => Variant;

/**
 * The variant a request's Accept-Encoding asks for; one chooser per app, with its own cache of
 * answers. The last value is compared first: a run of requests from one kind of client sends the
 * same one, and comparing it costs less than hashing it for the cache (docs/performance.md: the
 * measurements behind the code).
 */
export function createVariantChooser(): ChooseVariant {
  const choices = new Map<string, Choice>();
  const last = { value: '', choice: 'identity' as Choice };
  return (resource, acceptEncoding) => {
    if (!acceptEncoding) return resource.identity;
    const value = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
    if (value === last.value) return variantFor(resource, last.choice);
    let choice = choices.get(value);
    if (choice === undefined) {
      choice = value.length > 512 ? 'identity' : parseAcceptEncoding(value);
      if (choices.size >= MAX_CACHED) choices.clear();
      choices.set(value, choice);
    }
    last.value = value;
    last.choice = choice;
    return variantFor(resource, choice);
  };
}

const variantFor = (resource: Resource, choice: Choice): Variant =>
  (choice === 'br' ? resource.br : choice === 'gzip' ? resource.gzip : undefined) ?? resource.identity;

/**
 * The variant whose ETag is `etag`: every ETag of a resource names the same content, so any of them
 * matches (a few string comparisons: no set to hash a request's header into).
 */
const variantOf = (resource: Resource, etag: string): Variant | undefined =>
  etag === resource.br?.etag
    ? resource.br
    : etag === resource.identity.etag
      ? resource.identity
      : etag === resource.gzip?.etag
        ? resource.gzip
        : undefined;

/**
 * If-None-Match against the representation a 200 would send (RFC 9110 §13.1.2: the selected
 * representation, chosen by Accept-Encoding), by the weak comparison (W/ ignored). A tag of the same
 * content in another encoding does not match: the 200 sends the encoding asked for, with its own
 * ETag, so a 304 always names the tag a 200 would (docs/contract.md, Errors and HTTP).
 */
function noneMatch(header: string | string[], selected: Variant): boolean {
  // what a syncing client sends: the one ETag it was given, as it was given
  if (header === selected.etag) return true;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  if (value.length > 4096) return false;
  for (const raw of value.split(',')) if (raw.trim().replace(/^W\//, '') === selected.etag) return true;
  return false;
}

/**
 * If-Modified-Since, read only without If-None-Match (RFC 9110 §13.1.3): not modified when the
 * representation's Last-Modified is no later than the date sent. The date a client was given is
 * compared as text first; a date that does not parse, or several, is ignored.
 */
function notModifiedSince(header: string | string[] | undefined, selected: Variant): boolean {
  const { modified } = selected;
  if (typeof header !== 'string' || modified === null) return false;
  if (header === modified.text) return true;
  const since = Date.parse(header);
  return Number.isFinite(since) && modified.ms <= since;
}

/**
 * If-Match (RFC 9110 §13.1.1) uses the strong comparison: a W/ tag never matches; `*` matches the
 * resource, which exists. True when the header is sent and nothing in it matches (a 412).
 */
function matchFails(header: string | string[] | undefined, resource: Resource): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return false;
  if (value.length > 4096) return true;
  for (const raw of value.split(',')) if (variantOf(resource, raw.trim()) !== undefined) return false;
  return true;
}

/**
 * If-Match on a route that serves no precomputed body, so has no ETag (RFC 9110 §13.1.1): no tag
 * can match, and `*` matches only where the target has a current representation (`represented`:
 * something a GET there answers). A POST or DELETE route with no GET has none, so any If-Match is
 * false there. True when the header is sent and false: a 412, and nothing done (docs/contract.md,
 * Errors and HTTP).
 */
export function untaggedMatchFails(header: string | string[] | undefined, represented: boolean): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return !(represented && value.trim() === '*');
}

/** What a conditional request's validators decide: a 412, a 304, or the body (RFC 9110 §13.2.2). */
export type Precondition = 'failed' | 'not_modified' | 'proceed';

/**
 * RFC 9110 §13.2.2: If-Match first (a 412 when nothing matches), then If-None-Match, or without it
 * If-Modified-Since (a 304), each against `selected`, the variant a 200 would send.
 */
export function precondition(
  headers: Record<string, string | string[] | undefined>,
  resource: Resource,
  selected: Variant,
): Precondition {
  if (matchFails(headers['if-match'], resource)) return 'failed';
  const noneMatchHeader = headers['if-none-match'];
  if (noneMatchHeader) return noneMatch(noneMatchHeader, selected) ? 'not_modified' : 'proceed';
  return notModifiedSince(headers['if-modified-since'], selected) ? 'not_modified' : 'proceed';
}
