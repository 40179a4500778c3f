import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestClient } from '../../testing/index';
import { targetedSnapshot } from './fixtures';
import { forContext } from '../../src/index';

describe('createTestClient: no network, no storage, no timers', () => {
  /** Every platform API a real client may reach, each a spy that throws. */
  const platform = {
    fetch: vi.fn(),
    WebSocket: vi.fn(),
    BroadcastChannel: vi.fn(),
    localStorage: { getItem: vi.fn(), setItem: vi.fn(), removeItem: vi.fn() },
  };
  const touched = () => [platform.fetch, platform.WebSocket, platform.BroadcastChannel, ...Object.values(platform.localStorage)].filter((spy) => spy.mock.calls.length > 0);

  beforeEach(() => {
    vi.useFakeTimers();
    for (const spy of [platform.fetch, platform.WebSocket, platform.BroadcastChannel, ...Object.values(platform.localStorage)]) {
      spy.mockReset().mockImplementation(() => {
        throw new Error('the test client reached the platform');
      });
    }
    for (const [name, value] of Object.entries(platform)) vi.stubGlobal(name, value);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('touches none of them, through its whole life', async () => {
    const client = createTestClient({ flags: { theme: 'dark' } });
    client.subscribe(() => undefined);
    await client.ready();
    client.get('theme');
    client.getDetails('theme');
    client.getAll();
    forContext(client, { userId: 'ana' }).getAll();
    client.set('theme', 'light');
    client.setSnapshot(targetedSnapshot(2));
    client.setContext({ userId: 'ana' });
    client.setOverrides({ theme: 'blue' });
    await client.identify('bo', { plan: 'pro' });
    await client.refresh();
    await client.flush();
    expect(vi.getTimerCount()).toBe(0);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(touched()).toEqual([]);
  });

  it('ready(), refresh(), flush() and close() resolve without time passing', async () => {
    const client = createTestClient({ flags: { theme: 'dark' } });
    const settled: string[] = [];
    const track = (name: string, promise: Promise<unknown>) => void promise.then(() => settled.push(name));
    track('ready', client.ready());
    track('refresh', client.refresh());
    track('flush', client.flush());
    track('identify', client.identify('ana'));
    track('close', client.close());
    // Microtasks only: no timer is advanced.
    for (let i = 0; i < 5; i += 1) await Promise.resolve();
    expect(settled.sort()).toEqual(['close', 'flush', 'identify', 'ready', 'refresh']);
  });
});
