// The signed editions, verified by the client (docs/sync.md, "Signed editions"): a small TUF 1.0
// client over node:crypto, written here rather than bundling tuf-js, whose updater with its fetcher
// and models would be most of the package's size budget. From a trusted root it follows newer root
// versions (each signed by the old root's keys and its own), then the timestamp, the snapshot and
// the targets it names, each signed by its role's keys, none expired, none older than the copy has
// seen. What it returns is the signed targets: each body's SHA-256 and length, by its API route.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { fileIn } from '../site-format.ts';

interface Role {
  keyids: string[];
  threshold: number;
}
interface Signed {
  _type: string;
  version: number;
  expires: string;
  keys?: Record<string, { keytype: string; keyval: { public: string } }>;
  roles?: Record<string, Role>;
  meta?: Record<string, { version: number }>;
  targets?: Record<string, { length: number; hashes: { sha256: string }; custom?: { route?: string } }>;
  custom?: { build_id?: string; dataset_version?: string };
}
interface Envelope {
  signed: Signed;
  signatures: { keyid: string; sig: string }[];
}

/** What a copy keeps between syncs: the root it trusts and the newest versions it has seen. */
export interface TrustedEdition {
  root: Envelope;
  timestamp: number;
  snapshot: number;
  targets: number;
}

/** An edition verified: its targets' hashes and lengths by API route, and the build it names. */
export interface VerifiedEdition {
  trusted: TrustedEdition;
  byRoute: Map<string, { sha256: string; length: number; name: string }>;
  targets: Envelope;
}

export class EditionError extends Error {}

/** Canonical JSON (TUF's): keys sorted, no space, only `"` and `\` escaped; integers only. */
function canonical(v: unknown): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new EditionError('signed metadata holds a number that is not an integer');
    return String(v);
  }
  if (typeof v === 'string') return `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${canonical(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

const ed25519 = (hex: string) =>
  createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') },
    format: 'jwk',
  });

/** `env` carries at least the threshold of valid signatures by the keys `by` names for `role`. */
function checkSigned(env: Envelope, by: Signed, role: string, file: string) {
  const r = by.roles?.[role];
  const data = Buffer.from(canonical(env.signed));
  const good = new Set<string>();
  for (const s of env.signatures ?? []) {
    const key = by.keys?.[s.keyid];
    if (!r?.keyids.includes(s.keyid) || key?.keytype !== 'ed25519' || good.has(s.keyid)) continue;
    if (verify(null, data, ed25519(key.keyval.public), Buffer.from(s.sig, 'hex'))) good.add(s.keyid);
  }
  if (good.size < (r?.threshold ?? 1))
    throw new EditionError(`${file} is not signed by the ${role} key the trusted root names: an unknown signer`);
}

function checked(env: Envelope, type: string, file: string, now: number, version?: number) {
  if (env.signed?._type !== type) throw new EditionError(`${file} is not ${type} metadata`);
  if (version !== undefined && env.signed.version !== version)
    throw new EditionError(`${file} is version ${env.signed.version}, where ${version} was named`);
  if (Date.parse(env.signed.expires) <= now) throw new EditionError(`${file} expired at ${env.signed.expires}`);
}

const older = (file: string, got: number, seen: number) => {
  if (got < seen) throw new EditionError(`${file} is version ${got}, older than version ${seen} this copy has seen`);
};

/** The current edition from `get` (a metadata file's bytes, or null where there is none), checked from `trusted`. */
export async function verifyEdition(
  get: (file: string) => Promise<Buffer | null>,
  trusted: TrustedEdition,
  now: number,
): Promise<VerifiedEdition> {
  const parse = async (file: string): Promise<Envelope> => {
    const bytes = await get(file);
    if (!bytes) throw new EditionError(`${file} is missing: the signed edition cannot be checked`);
    try {
      return JSON.parse(bytes.toString('utf8')) as Envelope;
    } catch {
      throw new EditionError(`${file} is not JSON`);
    }
  };
  let root = trusted.root;
  for (let v = root.signed.version + 1; ; v++) {
    const bytes = await get(`${v}.root.json`);
    if (!bytes) break;
    const next = JSON.parse(bytes.toString('utf8')) as Envelope;
    checkSigned(next, root.signed, 'root', `${v}.root.json`);
    checkSigned(next, next.signed, 'root', `${v}.root.json`);
    if (next.signed._type !== 'root' || next.signed.version !== v)
      throw new EditionError(`${v}.root.json is not root version ${v}`);
    root = next;
  }
  checked(root, 'root', `${root.signed.version}.root.json`, now);
  const ts = await parse('timestamp.json');
  checkSigned(ts, root.signed, 'timestamp', 'timestamp.json');
  older('timestamp.json', ts.signed.version, trusted.timestamp);
  checked(ts, 'timestamp', 'timestamp.json', now);
  const s = ts.signed.meta?.['snapshot.json']?.version ?? 0;
  older('the snapshot', s, trusted.snapshot);
  const snap = await parse(`${s}.snapshot.json`);
  checkSigned(snap, root.signed, 'snapshot', `${s}.snapshot.json`);
  checked(snap, 'snapshot', `${s}.snapshot.json`, now, s);
  const t = snap.signed.meta?.['targets.json']?.version ?? 0;
  older('the targets', t, trusted.targets);
  const targets = await parse(`${t}.targets.json`);
  checkSigned(targets, root.signed, 'targets', `${t}.targets.json`);
  checked(targets, 'targets', `${t}.targets.json`, now, t);
  const byRoute = new Map<string, { sha256: string; length: number; name: string }>();
  for (const [name, info] of Object.entries(targets.signed.targets ?? {})) {
    if (info.custom?.route) byRoute.set(info.custom.route, { sha256: info.hashes.sha256, length: info.length, name });
  }
  return { trusted: { root, timestamp: ts.signed.version, snapshot: s, targets: t }, byRoute, targets };
}

/** A body against the signed target of its route: a sentence naming what differs, or null when it is the one signed. */
export function targetMismatch(edition: VerifiedEdition, route: string, body: string | Buffer): string | null {
  const target = edition.byRoute.get(route);
  if (!target) return `${route} is not a target of the signed edition`;
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (bytes.length !== target.length || createHash('sha256').update(bytes).digest('hex') !== target.sha256)
    return `${route} is not the body the edition signed (${target.name}: a tampered or altered body)`;
  return null;
}

/** Where a service's metadata is: its /tuf/metadata/ folder. */
export const metadataUrl = (baseUrl: string, file: string) =>
  `${baseUrl.replace(/\/$/, '')}${fileIn('tufMetadata', file)}`;
