import { BlockList, isIP } from 'node:net';

/** What a client is counted as when its socket has no address any more (it closed). */
const UNKNOWN_ADDRESS = 'unknown';

/**
 * An address or CIDR range of `trustProxy` (`10.0.0.5`, `10.0.0.0/8`, `::1`, `fd00::/8`) as a
 * BlockList rule; an IPv4 rule also matches its IPv4-mapped IPv6 form. A RangeError otherwise.
 */
function addTrusted(list: BlockList, entry: string): void {
  const [address = '', prefix, ...rest] = entry.trim().split('/');
  const family = isIP(address);
  const bits = prefix === undefined ? undefined : Number(prefix);
  const max = family === 4 ? 32 : 128;
  if (family === 0 || rest.length > 0 || (bits !== undefined && (!/^\d{1,3}$/.test(prefix ?? '') || (bits as number) > max))) {
    throw new RangeError(`trustProxy entries are IPv4 or IPv6 addresses or CIDR ranges (10.0.0.0/8, fd00::/8), not ${JSON.stringify(entry)}`);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(address, type);
  else list.addSubnet(address, bits, type);
}

/** The proxies whose `X-Forwarded-For` is believed; empty, nobody's is. */
export interface TrustedProxies {
  readonly entries: readonly string[];
  has(address: string): boolean;
}

/** Checks and compiles a `trustProxy` list; a malformed entry is a RangeError naming it. */
export function parseTrustedProxies(entries: readonly string[] = []): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) addTrusted(list, entry);
  return {
    entries: [...entries],
    has: (address) => {
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * One `X-Forwarded-For` entry as a bare address: `203.0.113.7`, `2001:db8::1`, and the forms
 * with a port some proxies write (`203.0.113.7:5123`, `[2001:db8::1]:5123`); undefined otherwise.
 */
function parseForwardedEntry(entry: string): string | undefined {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1] : undefined;
  if (isIP(text) !== 0) return text;
  const withPort = /^([\d.]+):\d{1,5}$/.exec(text);
  return withPort && isIP(withPort[1]!) === 4 ? withPort[1] : undefined;
}

/**
 * The client's address: the socket's, unless the socket is a trusted proxy; then walking
 * `X-Forwarded-For` from the right, the first address that is not a trusted proxy. An entry
 * that is not an address stops the walk at the last trusted hop (a client may write anything
 * to the left of what the proxies appended); every hop trusted, the leftmost entry.
 */
export function clientAddress(trusted: TrustedProxies, socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
  let address = socketAddress ?? UNKNOWN_ADDRESS;
  if (forwardedFor === undefined || !trusted.has(address)) return address;
  // node:http joins repeated X-Forwarded-For headers with ', '; an array comes from elsewhere.
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseForwardedEntry(hops[i]!);
    if (hop === undefined) return address;
    address = hop;
    if (!trusted.has(address)) return address;
  }
  return address;
}

/** `a.b.c.d` at the end of an IPv6 address (`::ffff:192.0.2.1`) as its two hexadecimal groups. */
function hexTail(address: string): string {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!tail) return address;
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
  return `${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** The eight 16-bit groups of an IPv6 address (`isIP(address) === 6`). */
function ipv6Groups(address: string): number[] {
  const [head = '', tail] = hexTail(address).split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * What the per-address limits count a client as: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one unmapped), an IPv6 address by its /64, the block one subscriber or one site gets,
 * so a client cannot step past the limits by changing addresses within it.
 */
export function addressLimitKey(address: string): string {
  const bare = address.split('%')[0] ?? '';
  if (isIP(bare) !== 6) return address;
  const groups = ipv6Groups(bare);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
