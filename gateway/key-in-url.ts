// A key in a URL, however it is spelled (docs/contract.md, Errors and HTTP: 400 for a key anywhere
// in the URL; docs/operations.md, Configuration: key-shaped text masked in the log). A client's URL reaches us
// percent-encoded as it chose: `ggt%5F…`, `%67gt_…`, `%2567gt_…` (encoded twice) all carry a key,
// so the check and the mask read what the URL decodes to. The key alphabet is ASCII, so only the
// ASCII escapes matter; a target without a '%' costs one scan more than the literal check did.
import { KEY_PREFIX } from '../build/site-format.ts';

/** Escapes undone in turn: a URL encoded once, twice or three times (a key encoded deeper is nobody's accident). */
const ROUNDS = 3;
const KEY_SHAPED = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]*`, 'g');
const MASKED = `${KEY_PREFIX}[redacted]`;

/** The value of a hex digit's character code, or -1. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** `s` with each `%XX` that encodes an ASCII character undone once; anything else (broken or not ASCII) left. */
function decodeAsciiOnce(s: string): string {
  let out = '';
  let from = 0;
  for (let i = s.indexOf('%'); i >= 0 && i + 2 < s.length; i = s.indexOf('%', i + 1)) {
    const hi = hexValue(s.charCodeAt(i + 1));
    const lo = hexValue(s.charCodeAt(i + 2));
    if (hi < 0 || hi > 7 || lo < 0) continue;
    out += s.slice(from, i) + String.fromCharCode(hi * 16 + lo);
    from = i + 3;
    i += 2;
  }
  return from === 0 ? s : out + s.slice(from);
}

/** What `s` reads as once its ASCII escapes are undone, up to ROUNDS times. */
export function decodedAscii(s: string): string {
  let current = s;
  for (let round = 0; round < ROUNDS && current.includes('%'); round++) {
    const next = decodeAsciiOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/** True when the text, as written or as it decodes, holds the key prefix. */
export function holdsKey(text: string): boolean {
  if (text.includes(KEY_PREFIX)) return true;
  return text.includes('%') && decodedAscii(text).includes(KEY_PREFIX);
}

/** The text with every key-shaped run masked; decoded first when a key hides behind escapes. */
export function maskKeys(text: string): string {
  if (!holdsKey(text)) return text;
  return decodedAscii(text).replace(KEY_SHAPED, MASKED);
}
