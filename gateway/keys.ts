// API keys (decisions.md §2): a greppable prefix, 192 bits from the CSPRNG in base64url, and a
// CRC-32 checksum, so a mistyped or made-up key is refused without touching the store. Only the
// SHA-256 of a key is ever stored.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'ggt_';
const RANDOM_BYTES = 24; // 192 bits → 32 base64url characters
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6; // 4 bytes of CRC-32 → 6 base64url characters
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECK_LENGTH;
const SHAPE = /^ggt_[A-Za-z0-9_-]{38}$/;

const checksum = (body: string) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32(body));
  return b.toString('base64url');
};

export function generateKey(): string {
  const body = randomBytes(RANDOM_BYTES).toString('base64url');
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the key has our shape and its checksum holds: worth a store lookup. */
export function isWellFormedKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !SHAPE.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return key.slice(KEY_PREFIX.length + BODY_LENGTH) === checksum(body);
}

export const hashKey = (key: string): Buffer => createHash('sha256').update(key).digest();
