// The client's address for per-address limits (docs/contract.md, Keys and registration): the
// socket's, unless the connection comes from a proxy TRUST_PROXY names (the CDN). Then
// X-Forwarded-For is read hop by hop from the right, each hop believed only while the one that
// wrote it is itself a trusted proxy, so a client that reaches the gateway directly cannot choose
// its address (docs/operations.md, "Behind a CDN"). The older form, a count of hops, is still read,
// with a warning: it trusts whoever connects. IPv6 clients are grouped by their /64, which one
// subscriber usually holds whole.
import { BlockList, isIP, isIPv6 } from 'node:net';

export type TrustProxy =
  | { kind: 'none' }
  /** Deprecated: the last `hops` entries of X-Forwarded-For are ours, whoever connects. */
  | { kind: 'hops'; hops: number }
  /** The proxies' addresses and ranges. */
  | { kind: 'proxies'; list: BlockList; text: string };

export const TRUST_PROXY_HOPS_WARNING =
  'TRUST_PROXY is a hop count: a client that reaches the gateway directly can choose its address in ' +
  'X-Forwarded-For. Name the proxies instead (TRUST_PROXY=<addresses or CIDR ranges>), or let only them connect.';

/** TRUST_PROXY's text → what it trusts, or a sentence saying what is wrong with it. */
export function parseTrustProxy(raw: string | undefined): TrustProxy | { error: string } {
  const text = raw?.trim() ?? '';
  if (text === '' || text === '0' || text === 'false') return { kind: 'none' };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= 10 ? { kind: 'hops', hops } : { error: `TRUST_PROXY as a hop count is at most 10, not ${text}` };
  }
  const list = new BlockList();
  for (const item of text.split(',').map((s) => s.trim())) {
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (!family || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
      return {
        error:
          `TRUST_PROXY must list the proxies' addresses or CIDR ranges, comma-separated ` +
          `(e.g. 10.0.0.0/8,192.0.2.7), not "${item}"`,
      };
    }
    list.addSubnet(address!, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { kind: 'proxies', list, text };
}

const familyOf = (address: string) => (isIPv6(address) ? 'ipv6' : 'ipv4');
const plain = (address: string) =>
  address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;

/** Whether the connection comes from a proxy the gateway trusts (its X-Forwarded-* are believed). */
function fromTrustedProxy(remote: string | undefined, trust: TrustProxy): boolean {
  if (trust.kind === 'hops') return trust.hops > 0;
  if (trust.kind === 'none' || !remote || !isIP(plain(remote))) return false;
  return trust.list.check(plain(remote), familyOf(plain(remote)));
}

export function clientAddress(
  remote: string | undefined,
  forwarded: string | string[] | undefined,
  trust: TrustProxy,
): string {
  let address = plain(remote ?? 'unknown');
  if (trust.kind !== 'none' && forwarded) {
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
      .split(',')
      .map((s) => plain(s.trim()))
      .filter(Boolean);
    if (trust.kind === 'hops') {
      hops.push(address);
      // The last `hops` entries are our own proxies; the one before them is the client.
      address = hops[Math.max(0, hops.length - 1 - trust.hops)]!;
    } else {
      // Walk back while the address at hand is a trusted proxy: what it wrote is believed.
      while (hops.length && fromTrustedProxy(address, trust)) {
        const next = hops.pop()!;
        if (!isIP(next)) break;
        address = next;
      }
    }
  }
  return isIPv6(address) ? `${ipv6Prefix64(address)}::/64` : address;
}

function ipv6Prefix64(address: string): string {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':');
}

const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The origin a request was sent to, for the examples a page shows (docs/contract.md, The front
 * door): its Host, with https only when a trusted proxy says so in X-Forwarded-Proto, as
 * X-Forwarded-For is believed. `fallback` when Host is missing or not a plain host.
 */
export function requestOrigin(
  req: { headers: Record<string, string | string[] | undefined>; remoteAddress: string | undefined },
  trust: TrustProxy,
  fallback: string,
): string {
  const host = req.headers.host;
  if (typeof host !== 'string' || !HOST.test(host)) return fallback;
  const https = fromTrustedProxy(req.remoteAddress, trust) && req.headers['x-forwarded-proto'] === 'https';
  return `${https ? 'https' : 'http'}://${host.toLowerCase()}`;
}
