// The client's address for per-address limits (decisions.md §2): the socket's, unless TRUST_PROXY
// says how many proxies in front (the CDN) append to X-Forwarded-For. IPv6 clients are grouped by
// their /64, which one subscriber usually holds whole.
import { isIPv6 } from 'node:net';

export function clientAddress(
  remote: string | undefined,
  forwarded: string | string[] | undefined,
  trustProxy: number,
): string {
  let address = remote ?? 'unknown';
  if (trustProxy > 0 && forwarded) {
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    hops.push(address);
    // The last `trustProxy` hops are our own proxies; the one before them is the client.
    address = hops[Math.max(0, hops.length - 1 - trustProxy)]!;
  }
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
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
