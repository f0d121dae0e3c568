// The signing keys of the signed editions (docs/operations.md, "Signed editions"): Ed25519, one
// PKCS#8 PEM file per role under STATE_DIR/tuf-keys/, never in the repository nor in a build. The
// root key belongs offline: a deployment's state folder holds the targets, snapshot and timestamp
// keys only. A state folder with none at all gets a development set, root included, on its first
// build, and the build says so.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Key, Signature } from '@tufjs/models';

export const ROLES = ['root', 'targets', 'snapshot', 'timestamp'] as const;
export type Role = (typeof ROLES)[number];
export const KEYS_DIR = 'tuf-keys';

/** A role's key: its TUF form (key id, public half) and, where held, what signs with it. */
export interface RoleKey {
  key: Key;
  privateKey: KeyObject | null;
}

/** The TUF key of an Ed25519 public key: its key id the SHA-256 of its canonical JSON (keys sorted, no space). */
function tufKey(publicKey: KeyObject): Key {
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  const canonical = `{"keytype":"ed25519","keyval":{"public":"${raw}"},"scheme":"ed25519"}`;
  const keyID = createHash('sha256').update(canonical).digest('hex');
  return new Key({ keyID, keyType: 'ed25519', scheme: 'ed25519', keyVal: { public: raw } });
}

/** A private key's PEM text → the role key that signs with it. */
export function roleKeyOf(pem: string): RoleKey {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('a signing key of the signed editions is Ed25519');
  return { key: tufKey(createPublicKey(privateKey)), privateKey };
}

/** A signer for @tufjs/models' Metadata.sign: Ed25519 over the canonical bytes it is given. */
export const signerOf =
  ({ key, privateKey }: RoleKey) =>
  (data: Buffer) =>
    new Signature({ keyID: key.keyID, sig: sign(null, data, privateKey!).toString('hex') });

/** A new Ed25519 key as PEM (PKCS#8). */
export const newKeyPem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/**
 * The keys in `stateDir`: each role's, or null where its file is absent. With no key folder and
 * `develop`, a development set is made first (files 0600; the folder made whole beside and renamed in,
 * so two builds at once keep one set) and `made` says so.
 */
export function stateKeys(stateDir: string, develop: boolean): { keys: Record<Role, RoleKey | null>; made: boolean } {
  const dir = join(stateDir, KEYS_DIR);
  let made = false;
  if (develop && !existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    mkdirSync(tmp, { recursive: true, mode: 0o700 });
    for (const role of ROLES) writeFileSync(join(tmp, `${role}.pem`), newKeyPem(), { mode: 0o600, flag: 'wx' });
    try {
      renameSync(tmp, dir);
      made = true;
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another build made them first
    }
  }
  const read = (role: Role) => {
    const file = join(dir, `${role}.pem`);
    return existsSync(file) ? roleKeyOf(readFileSync(file, 'utf8')) : null;
  };
  const keys = {
    root: read('root'),
    targets: read('targets'),
    snapshot: read('snapshot'),
    timestamp: read('timestamp'),
  };
  return { keys, made };
}
