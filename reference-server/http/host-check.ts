import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody, RouteError, writeRawError } from './responses';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 and ::1, their IPv4-mapped IPv6 forms included. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A listen host that only this machine reaches: `localhost` or a loopback address. */
export function isLoopbackListen(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host.replace(/^\[(.*)\]$/, '$1'));
}

/** `localhost`, a name under `.localhost` (RFC 6761: always loopback), or a loopback address. */
function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/** The name of a `Host` header, lower-case, without its port, brackets or trailing dot. */
function hostName(host: string): string {
  const text = host.trim().toLowerCase();
  const name = text.startsWith('[') ? text.slice(1, text.indexOf(']') === -1 ? undefined : text.indexOf(']')) : text.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

const NAME_PATTERN = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/**
 * Checks an `allowedHosts` list: host names (`flags.example.com`), a leading dot for a name
 * and every name under it (`.example.com`), or addresses; lower-cased. A RangeError otherwise.
 */
export function parseAllowedHosts(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const name = entry.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
    if (!NAME_PATTERN.test(name) && isIP(name) === 0) {
      throw new RangeError(`allowedHosts entries are host names (flags.example.com, .example.com for every name under it) or addresses, without a port, not ${JSON.stringify(entry)}`);
    }
    return name;
  });
}

function isListed(name: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => (entry.startsWith('.') ? name === entry.slice(1) || name.endsWith(entry) : name === entry));
}

/**
 * Which `Host` headers the server answers: on a loopback listen, loopback names and addresses
 * and `allowedHosts` only (a page on a domain rebound to 127.0.0.1 is refused: DNS rebinding);
 * off loopback, those of `allowedHosts` when it is given, else any.
 */
export type HostPolicy = { kind: 'any' } | { kind: 'listed'; allowedHosts: readonly string[]; loopback: boolean };

export function hostPolicy(listenHost: string, allowedHosts: readonly string[] | undefined): HostPolicy {
  const loopback = isLoopbackListen(listenHost);
  if (!loopback && allowedHosts === undefined) return { kind: 'any' };
  return { kind: 'listed', allowedHosts: parseAllowedHosts(allowedHosts ?? []), loopback };
}

/**
 * The 403 for a request whose `Host` the policy refuses, if it does. A request without `Host`
 * passes: browsers always send one, and HTTP/1.1 requires it (the router's 400).
 */
export function hostRefusal(policy: HostPolicy, host: string | undefined): RouteError | undefined {
  if (policy.kind === 'any' || host === undefined) return undefined;
  const name = hostName(host);
  if (isLoopbackName(name) || isListed(name, policy.allowedHosts)) return undefined;
  const why = policy.loopback
    ? 'this server listens on loopback and answers loopback hosts only (localhost, 127.0.0.1, [::1]), against DNS rebinding'
    : 'it is not in allowedHosts';
  return new RouteError(403, 'forbidden', `Host "${host}" is not served: ${why}; add it to allowedHosts (--allowed-hosts, or allowedHosts in the config) to serve it`, 'Host');
}

/** The `upgrade` listener: refuses a handshake whose `Host` the policy refuses, else passes it on. */
export function guardUpgrade(policy: HostPolicy, next: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const refusal = hostRefusal(policy, req.headers.host);
    if (!refusal) return next(req, socket, head);
    writeRawError(socket, refusal.status, errorBody(refusal.code, refusal.message, refusal.path));
  };
}
