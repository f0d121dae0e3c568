// API keys (decisions.md §2): a greppable prefix, 192 bits from the CSPRNG in base64url, and a
// CRC-32 checksum, so a mistyped or made-up key is refused without touching the store. Only the
// SHA-256 of a key is ever stored.
import * as crypto from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'ggt_';
const RANDOM_BYTES = 24; // 192 bits → 32 base64url characters
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6; // 4 bytes of CRC-32 → 6 base64url characters
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECK_LENGTH;
const SHAPE = /^ggt_[A-Za-z0-9_-]{38}$/;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The CRC-32 of the body as base64url of its 4 big-endian bytes (6 characters), without allocating a Buffer. */
const checksum = (body: string) => {
  const c = crc32(body) >>> 0;
  const b0 = c >>> 24, b1 = (c >>> 16) & 255, b2 = (c >>> 8) & 255, b3 = c & 255;
  return (
    ALPHABET[b0 >> 2]! + ALPHABET[((b0 & 3) << 4) | (b1 >> 4)]! + ALPHABET[((b1 & 15) << 2) | (b2 >> 6)]! +
    ALPHABET[b2 & 63]! + ALPHABET[b3 >> 2]! + ALPHABET[(b3 & 3) << 4]!
  );
};

export function generateKey(): string {
  const body = crypto.randomBytes(RANDOM_BYTES).toString('base64url');
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the key has our shape and its checksum holds: worth a store lookup. */
export function isWellFormedKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !SHAPE.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return key.slice(KEY_PREFIX.length + BODY_LENGTH) === checksum(body);
}

/** SHA-256 of the key: the one-shot crypto.hash where Node has it (20.12+), ~30% cheaper per call. */
export const hashKey: (key: string) => Buffer =
  typeof crypto.hash === 'function' ? (key) => crypto.hash('sha256', key, 'buffer') : (key) => crypto.createHash('sha256').update(key).digest();
