// Issue 27, part 7: on loopback the server answers loopback Hosts only (and allowedHosts), so a
// page on a domain rebound to 127.0.0.1 cannot read or change a developer's flags (DNS rebinding).
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { hostPolicy, hostRefusal, isLoopbackListen, parseAllowedHosts } from '../../../reference-server/http/host-check';
import type { ReferenceServer, ServerConfig } from '../../../reference-server/index';
import { demoConfig } from '../../../reference-server/index';
import { DEMO, useServers } from '../helpers';
import { openRaw, parseResponses, rawErrorOf, rawExchange, upgradeRequest } from '../raw-http';

const servers = useServers();

describe('hostRefusal', () => {
  const loopback = hostPolicy('127.0.0.1', undefined);

  it('on a loopback listen, passes loopback names and addresses with any port, and nothing else', () => {
    const passed = ['localhost', 'localhost:8787', 'LocalHost.', 'app.localhost:5173', '127.0.0.1', '127.5.6.7:80', '[::1]:8787', '[::1]', '[::ffff:127.0.0.1]:1'];
    expect(passed.filter((host) => hostRefusal(loopback, host) !== undefined)).toEqual([]);
    const refused = ['evil.example:8798', '127.0.0.1.nip.io', 'localhost.evil.example', 'localhostx', '[::2]', '0.0.0.0', '192.168.1.4:8787', '2130706433', ''];
    expect(refused.map((host) => hostRefusal(loopback, host)?.status)).toEqual(Array(refused.length).fill(403));
    // Browsers always send Host; a request without one is no rebinding page (HTTP/1.1 requires it: the router's 400).
    expect(hostRefusal(loopback, undefined)).toBeUndefined();
  });

  it('names the host and the setting in a 403 forbidden', () => {
    expect(hostRefusal(loopback, 'evil.example:8798')).toMatchObject({
      status: 403,
      code: 'forbidden',
      path: 'Host',
      message: expect.stringMatching(/^Host "evil\.example:8798" is not served: this server listens on loopback .*allowedHosts \(--allowed-hosts/),
    });
  });

  it('passes allowedHosts: a name as given, a leading dot for it and every name under it', () => {
    const policy = hostPolicy('localhost', ['flags.test', '.corp.example', '192.168.1.4']);
    for (const host of ['flags.test:1', 'FLAGS.TEST', 'corp.example', 'a.b.corp.example:443', '192.168.1.4:8787', 'localhost']) expect(hostRefusal(policy, host)).toBeUndefined();
    for (const host of ['sub.flags.test', 'xcorp.example', 'flags.test.evil', '192.168.1.5']) expect(hostRefusal(policy, host)?.status).toBe(403);
  });

  it('off loopback, checks nothing unless allowedHosts is set', () => {
    expect(hostPolicy('0.0.0.0', undefined)).toEqual({ kind: 'any' });
    expect(hostRefusal(hostPolicy('::', undefined), 'anything.example')).toBeUndefined();
    const listed = hostPolicy('0.0.0.0', ['flags.example.com']);
    expect(hostRefusal(listed, 'flags.example.com')).toBeUndefined();
    expect(hostRefusal(listed, 'localhost:8787')).toBeUndefined();
    expect(hostRefusal(listed, 'other.example.com')?.message).toMatch(/is not served: it is not in allowedHosts/);
  });

  it('knows a loopback listen host, and refuses allowedHosts entries that are not host names', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'].map(isLoopbackListen)).toEqual(Array(6).fill(true));
    expect(['0.0.0.0', '::', '192.168.0.1', 'example.com', 'localhost.example.com'].map(isLoopbackListen)).toEqual(Array(5).fill(false));
    for (const entry of ['flags.test:8080', 'a b', '', 'http://flags.test', '*.example.com']) expect(() => parseAllowedHosts([entry])).toThrow(/allowedHosts entries are host names/);
    expect(parseAllowedHosts(['Flags.Test', '[::1]', '.Example.COM'])).toEqual(['flags.test', '::1', '.example.com']);
  });
});

/** A raw request with `host`; the admin routes with the demo's well-known token. */
async function ask(server: ReferenceServer, host: string, path: string) {
  const token = path.startsWith('/admin/') ? DEMO.adminToken : DEMO.prodClientKey;
  const raw = await rawExchange(server, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  return parseResponses(raw)[0]!;
}

describe('a server on loopback, over HTTP and WebSocket', () => {
  it('refuses a rebound Host on the admin and SDK routes with 403, and serves localhost and 127.0.0.1', async () => {
    const server = await servers.start();
    const evil = await ask(server, 'evil.example:8798', '/admin/v1/environments');
    expect(evil.status).toBe(403);
    expect(rawErrorOf(evil)).toEqual({ code: 'forbidden', path: 'Host', message: expect.stringContaining('Host "evil.example:8798" is not served') });
    expect(evil.body).not.toContain('new-checkout');
    const sdk = await ask(server, 'evil.example', '/sdk/v1/snapshot');
    expect(sdk.status).toBe(403);
    expect(sdk.headers['access-control-allow-origin']).toBe('*');
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `flags.localhost:${server.port}`]) {
      expect((await ask(server, host, '/admin/v1/environments')).status).toBe(200);
    }
  });

  it('refuses a WebSocket upgrade with a rebound Host with the same 403', async () => {
    const server = await servers.start();
    /** The server's first bytes: the whole refusal, or the 101 of a handshake (whose socket stays open). */
    const firstAnswer = async (host: string) => {
      const socket = openRaw(server);
      socket.write(upgradeRequest('/sdk/v1/stream', { Host: host }));
      const [chunk] = (await once(socket, 'data')) as [Buffer];
      return chunk.toString();
    };
    const refused = parseResponses(await firstAnswer('evil.example:8798'))[0];
    expect(refused?.status).toBe(403);
    expect(rawErrorOf(refused)).toMatchObject({ code: 'forbidden', path: 'Host' });
    expect(await firstAnswer(`localhost:${server.port}`)).toMatch(/^HTTP\/1\.1 101 /);
  });

  it('serves the hosts of allowedHosts, from the option or the config', async () => {
    const fromOption = await servers.start({ allowedHosts: ['flags.test'] });
    const config: ServerConfig = { ...demoConfig(), allowedHosts: ['.dev.test'] };
    const fromConfig = await servers.start({ config });
    expect((await ask(fromOption, 'flags.test:8787', '/sdk/v1/snapshot')).status).toBe(200);
    expect((await ask(fromOption, 'evil.example', '/sdk/v1/snapshot')).status).toBe(403);
    expect((await ask(fromConfig, 'app.dev.test', '/sdk/v1/snapshot')).status).toBe(200);
    // The option wins over the config.
    const both = await servers.start({ config, allowedHosts: ['flags.test'] });
    expect((await ask(both, 'app.dev.test', '/sdk/v1/snapshot')).status).toBe(403);
  });

  it('off loopback answers any Host, unless allowedHosts is set', async () => {
    const open = await servers.start({ host: '0.0.0.0', allowDemoCredentials: true });
    expect((await ask(open, 'flags.example.com', '/sdk/v1/snapshot')).status).toBe(200);
    const listed = await servers.start({ host: '0.0.0.0', allowDemoCredentials: true, allowedHosts: ['flags.example.com'] });
    expect((await ask(listed, 'flags.example.com', '/sdk/v1/snapshot')).status).toBe(200);
    expect((await ask(listed, 'evil.example', '/sdk/v1/snapshot')).status).toBe(403);
  });
});
