// Issue 27, part 1: whom the per-address limits count, with and without trusted proxies.
import { describe, expect, it } from 'vitest';
import { addressLimitKey, clientAddress, parseTrustedProxies } from '../../../reference-server/http/client-address';

describe('parseTrustedProxies', () => {
  it('matches addresses and CIDR ranges of both families, and IPv4 rules the IPv4-mapped form too', () => {
    const trusted = parseTrustedProxies(['10.0.0.0/8', '192.0.2.7', '2001:db8:1::/48', '::1']);
    expect(['10.200.3.4', '192.0.2.7', '::ffff:10.1.2.3', '::ffff:192.0.2.7', '2001:db8:1:ffff::9', '::1'].map(trusted.has)).toEqual([true, true, true, true, true, true]);
    expect(['11.0.0.1', '192.0.2.8', '2001:db8:2::1', '::2', 'not an address', ''].map(trusted.has)).toEqual([false, false, false, false, false, false]);
  });

  it('refuses what is not an address or a range, naming it', () => {
    for (const entry of ['10.0.0.0/33', '::/129', 'proxy.internal', '10.0.0.0/8/1', '10.0.0.0/x', '300.1.1.1', '']) {
      expect(() => parseTrustedProxies([entry])).toThrow(new RegExp(`trustProxy entries are .*not ${JSON.stringify(entry).replace(/[./]/g, '\\$&')}`));
    }
  });
});

describe('clientAddress', () => {
  const proxies = parseTrustedProxies(['10.0.0.0/8', 'fd00::/8']);

  it('is the socket address without trusted proxies, whatever X-Forwarded-For says', () => {
    expect(clientAddress(parseTrustedProxies([]), '10.0.0.2', '203.0.113.9')).toBe('10.0.0.2');
    // An untrusted peer that claims to forward for someone else is that peer.
    expect(clientAddress(proxies, '198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    expect(clientAddress(proxies, undefined, '203.0.113.9')).toBe('unknown');
  });

  it('walks X-Forwarded-For from the right to the first address that is not a trusted proxy', () => {
    expect(clientAddress(proxies, '10.0.0.2', '203.0.113.9')).toBe('203.0.113.9');
    // A client wrote a fake entry on the left: the walk stops before it.
    expect(clientAddress(proxies, '10.0.0.2', '1.1.1.1, 203.0.113.9, 10.0.0.7')).toBe('203.0.113.9');
    expect(clientAddress(proxies, '::ffff:10.0.0.2', '2001:db8::5, fd00::1')).toBe('2001:db8::5');
    // Two headers, as node:http joins them.
    expect(clientAddress(proxies, '10.0.0.2', ['203.0.113.9', '10.0.0.7'])).toBe('203.0.113.9');
    // Every hop trusted: the leftmost.
    expect(clientAddress(proxies, '10.0.0.2', '10.9.9.9, 10.0.0.7')).toBe('10.9.9.9');
  });

  it('reads the forms with a port some proxies write', () => {
    expect(clientAddress(proxies, '10.0.0.2', '203.0.113.9:5123')).toBe('203.0.113.9');
    expect(clientAddress(proxies, '10.0.0.2', '[2001:db8::5]:443')).toBe('2001:db8::5');
    expect(clientAddress(proxies, '10.0.0.2', '[2001:db8::5]')).toBe('2001:db8::5');
  });

  it('falls back to the last trusted hop on a malformed entry, never throwing', () => {
    for (const header of ['garbage', '203.0.113.9, unknown', '', ' , ', '[nope]:1', '1.2.3.4:99999999', '[10.0.0.1]']) {
      expect(clientAddress(proxies, '10.0.0.2', header)).toBe('10.0.0.2');
    }
    expect(clientAddress(proxies, '10.0.0.2', '203.0.113.9, 10.0.0.7, _hidden')).toBe('10.0.0.2');
    expect(clientAddress(proxies, '10.0.0.2', 'garbage, 10.0.0.7')).toBe('10.0.0.7');
  });
});

describe('addressLimitKey', () => {
  it('counts IPv4 as it is, IPv4-mapped IPv6 as its IPv4 address, and IPv6 by its /64', () => {
    expect(addressLimitKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressLimitKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressLimitKey('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(addressLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(addressLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressLimitKey('unknown')).toBe('unknown');
  });
});
