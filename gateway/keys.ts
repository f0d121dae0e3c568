// API keys (docs/contract.md, Keys and registration): a greppable prefix, 192 bits from the CSPRNG in base64url, and a
// CRC-32 checksum, so a mistyped or made-up key is refused without touching the store. Only the
// SHA-256 of a key is ever stored.
//
// The check runs on every request that carries an unknown key (a flood of made-up keys is the
// cheapest attack there is), so it is one pass over the characters with table lookups: no regex,
// no native call, nothing allocated; zlib.crc32 on so short an input costs more in the call than
// in the sum (docs/performance.md: the measurements behind the code).

import * as crypto from 'node:crypto';
import { KEY_PREFIX, RECOVERY_TOKEN_PREFIX } from '../build/site-format.ts';

const RANDOM_BYTES = 24; // 192 bits → 32 base64url characters
const BODY_START = KEY_PREFIX.length;
const BODY_END = BODY_START + 32;
const CHECK_LENGTH = 6; // 4 bytes of CRC-32 → 6 base64url characters
export const KEY_LENGTH = BODY_END + CHECK_LENGTH;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** 1 for each character code of the base64url alphabet. */
const URL_SAFE = new Uint8Array(128);
for (const code of ALPHABET_CODES) URL_SAFE[code] = 1;

/** The CRC-32 table of the reflected polynomial 0xEDB88320 (the CRC of zlib, gzip and PNG). */
const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

/**
 * CRC-32 of `s[from, to)`, whose characters are ASCII (so each is its own UTF-8 byte), or -1 when
 * one of them is not in the base64url alphabet.
 */
export function bodyCrc32(s: string, from: number, to: number): number {
  let crc = -1;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || URL_SAFE[c] === 0) return -1;
    crc = CRC_TABLE[(crc ^ c) & 255]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/** The base64url character at position `i` (0–5) of the 4 big-endian bytes of `crc`. */
function checkCode(crc: number, i: number): number {
  // 32 bits in 6-bit groups from the top, the last group padded with 4 zero bits (as base64url of 4 bytes)
  const sixBits = i < 5 ? (crc >>> (26 - 6 * i)) & 63 : (crc & 3) << 4;
  return ALPHABET_CODES[sixBits]!;
}

export function generateKey(): string {
  const body = crypto.randomBytes(RANDOM_BYTES).toString('base64url');
  const crc = bodyCrc32(body, 0, body.length);
  let check = '';
  for (let i = 0; i < CHECK_LENGTH; i++) check += String.fromCharCode(checkCode(crc, i));
  return `${KEY_PREFIX}${body}${check}`;
}

/** True when the key has our shape and its checksum holds: worth a store lookup. */
/**
 * Does an X-API-Key that is no key hold several (docs/contract.md, Errors and HTTP)? node:http joins a
 * header sent twice with a comma (RFC 9110 §5.3), which no key holds; asked only of a key refused.
 */
export const isRepeatedKey = (raw: string | string[]) => typeof raw !== 'string' || raw.includes(',');

export function isWellFormedKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !key.startsWith(KEY_PREFIX)) return false;
  const crc = bodyCrc32(key, BODY_START, BODY_END);
  if (crc < 0) return false;
  for (let i = 0; i < CHECK_LENGTH; i++) if (key.charCodeAt(BODY_END + i) !== checkCode(crc, i)) return false;
  return true;
}

/**
 * SHA-256 of the key as a 32-character binary string ('binary', i.e. latin1: one character a byte). A string and
 * not a Buffer because every Buffer from crypto.hash is a fresh ArrayBuffer, which costs more than the
 * hash itself in a flood of unknown keys (docs/performance.md: the measurements behind the code). The
 * stores turn it into bytes or hex only where they write or query (digestBytes, digestHex).
 */
export const hashKey: (key: string) => string =
  typeof crypto.hash === 'function'
    ? (key) => crypto.hash('sha256', key, 'binary')
    : (key) => crypto.createHash('sha256').update(key).digest('binary'); // Node before 20.12

export const digestBytes = (digest: string): Buffer => Buffer.from(digest, 'latin1');
export const digestHex = (digest: string): string => Buffer.from(digest, 'latin1').toString('hex');

// Recovery tokens (docs/contract.md, Getting a key back): 192 bits from the CSPRNG behind a prefix of
// their own; only their SHA-256 (hashKey) is stored. No checksum: they arrive a few times an hour.
const TOKEN_BODY = /^[A-Za-z0-9_-]{32}$/;

export const generateRecoveryToken = () =>
  `${RECOVERY_TOKEN_PREFIX}${crypto.randomBytes(RANDOM_BYTES).toString('base64url')}`;

export const isWellFormedRecoveryToken = (token: string) =>
  token.startsWith(RECOVERY_TOKEN_PREFIX) && TOKEN_BODY.test(token.slice(RECOVERY_TOKEN_PREFIX.length));
