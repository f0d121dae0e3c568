// The registration body (decisions.md §2): JSON, at most 1 KiB, an object with a string `email`,
// trimmed and lower-cased, at most 254 characters, a pragmatic local@domain.tld.
import { HttpError, MESSAGES } from './errors.ts';

export const MAX_BODY_BYTES = 1024;
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const badJson = new HttpError(400, MESSAGES.badJson);
export const badEmail = new HttpError(400, MESSAGES.badEmail);
export const unsupportedType = new HttpError(415, MESSAGES.unsupportedType);
export const tooLarge = new HttpError(413, MESSAGES.tooLarge);

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

export function readEmail(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badJson;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badJson;
  const email = (parsed as { email?: unknown }).email;
  if (typeof email !== 'string') throw badJson;
  const normal = email.trim().toLowerCase();
  if (normal.length > 254 || !EMAIL.test(normal) || normal.includes('..') || normal.startsWith('.') || normal.includes('.@')) throw badEmail;
  return normal;
}
