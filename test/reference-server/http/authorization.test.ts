/** Authorization headers as clients and proxies send them, over raw HTTP. */
import { describe, expect, it, vi } from 'vitest';
import { call, DEMO, errorOf, useServers } from '../helpers';
import { openRaw, parseResponses, rawErrorOf, rawExchange, snapshotRequest } from '../raw-http';

const servers = useServers();

describe('Authorization header variants', () => {
  it.each([
    ['a lowercase scheme', `bearer ${DEMO.prodServerKey}`],
    ['an uppercase scheme', `BEARER ${DEMO.prodServerKey}`],
    ['several spaces after the scheme', `Bearer    ${DEMO.prodServerKey}`],
  ])('accepts %s', async (_name, authorization) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: null, headers: { authorization } });
    expect(response.status).toBe(200);
  });

  it.each([
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['no space after the scheme', `Bearer${DEMO.prodServerKey}`],
    ['two tokens', `Bearer ${DEMO.prodServerKey} ${DEMO.prodServerKey}`],
    ['a comma-joined pair of credentials', `Bearer ${DEMO.prodServerKey}, Bearer ${DEMO.prodServerKey}`],
    ['a key with a trailing character', `Bearer ${DEMO.prodServerKey}x`],
    ['a quoted key', `Bearer "${DEMO.prodServerKey}"`],
  ])('answers 401 with the error shape for %s', async (_name, authorization) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  it('uses the first of two Authorization headers', async () => {
    const server = await servers.start();
    const goodFirst = parseResponses(
      await rawExchange(server, snapshotRequest([`Authorization: Bearer ${DEMO.prodServerKey}`, 'Authorization: Bearer nope'])),
    );
    expect(goodFirst[0]?.status).toBe(200);
    const badFirst = parseResponses(
      await rawExchange(server, snapshotRequest(['Authorization: Bearer nope', `Authorization: Bearer ${DEMO.prodServerKey}`])),
    );
    expect(badFirst[0]?.status).toBe(401);
    expect(rawErrorOf(badFirst[0]).code).toBe('unauthorized');
  });

  it('serves a key its own environment, and refuses it on a keep-alive connection once revoked', async () => {
    const server = await servers.start();
    const key = await server.createKey('staging', 'server');
    const socket = openRaw(server);
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString()));
    const request = snapshotRequest([`Authorization: Bearer ${key}`], 'keep-alive');
    socket.write(request);
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(1));
    const first = parseResponses(raw)[0]!;
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ environmentId: 'staging' });

    server.revokeKey(key);
    socket.write(request);
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(2));
    const second = parseResponses(raw)[1]!;
    expect(second.status).toBe(401);
    expect(rawErrorOf(second).message).toContain('revoked');
  });
});
