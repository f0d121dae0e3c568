// How long a request target may be, and telling a target too long from a header section too large
// when node:http's parser runs out of room (docs/contract.md, Errors and HTTP). RFC 9112 §3 answers a
// target longer than the server will parse with 414, and §3 asks for request lines of 8000 octets at
// least; the header section's own limit (MAX_HEADER_BYTES) counts the request line too, so without
// this a long URL was refused as 431, naming the headers, which are not what the client should shorten.

/** The longest request target (path and query) served; longer is 414. No URL of the service comes near it. */
export const MAX_TARGET_BYTES = 8 * 1024;

/**
 * A request line's start: a method (tchar, RFC 9110 §5.6.2), one space, and a target in origin,
 * asterisk or absolute form. A header line has a colon before any space, so it never matches.
 */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ ((?:\/|\*|[A-Za-z][A-Za-z0-9+.-]*:)[^ \r\n]*)/;

/**
 * Whether the parser's header overflow came of the request target. `packet` is the chunk the
 * parser was reading when the count ran over (node:http's `rawPacket`), `at` how far into it it got
 * (`bytesParsed`). It did when the line being read there is a request line, or when the packet opens
 * with a request line whose target is over MAX_TARGET_BYTES. A target sent in many small writes,
 * whose last one opens mid-line, is not recognised and stays a 431: a header line cannot be told
 * from the rest of a target there.
 */
export function overflowIsTarget(packet: Buffer | undefined, at: number | undefined): boolean {
  if (!packet || packet.length === 0) return false;
  const end = Math.max(0, Math.min(at ?? packet.length, packet.length));
  const lineStart = end === 0 ? 0 : packet.lastIndexOf(0x0a, end - 1) + 1;
  if (REQUEST_LINE.test(packet.toString('latin1', lineStart, Math.min(lineStart + 64, packet.length)))) return true;
  const first = packet.indexOf(0x0a);
  const target = REQUEST_LINE.exec(packet.toString('latin1', 0, first === -1 ? packet.length : first))?.[1];
  return target !== undefined && target.length > MAX_TARGET_BYTES;
}
