import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import { browserBootstrap, forContext } from '../../src/index';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { createTestClient } from '../../testing/index';
import { DEMO, useReferenceServer } from '../helpers/reference-server';

const reference = useReferenceServer();

/** One client per process, as a server keeps it: the server key, so forContext sees every flag. */
async function serverFlags() {
  const flags = createClient({ sdkKey: DEMO.prodServerKey, baseUrl: reference.server.baseUrl, pollInterval: 0, events: false });
  reference.clients.push(flags);
  await flags.ready();
  return flags;
}

/** What the reference server sends a client key: the snapshot a page's client would fetch. */
async function clientKeySnapshot(): Promise<FlagSnapshot> {
  const response = await fetch(`${reference.server.baseUrl}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${DEMO.prodClientKey}` } });
  return (await response.json()) as FlagSnapshot;
}

describe('browserBootstrap(client): what a page starts from', () => {
  it("from a server-key client, is exactly the snapshot the environment's client key is served: no server-only flag", async () => {
    const flags = await serverFlags();
    const bootstrap = browserBootstrap(flags)!;
    expect(bootstrap).toEqual(await clientKeySnapshot());
    expect(Object.keys(bootstrap.flags)).not.toContain('payments-provider');
    expect(forContext(flags, {}).get('payments-provider', 'none')).toBe('stripe'); // the server still has it
    expect(JSON.stringify(bootstrap)).not.toContain('payments-provider');
  });

  it('lets the page render what the server rendered: a client started from it serves the same values for the same context', async () => {
    const flags = await serverFlags();
    const contexts: EvaluationContext[] = [
      { userId: 'u-1', attributes: { country: 'DE', plan: 'enterprise' } },
      { userId: 'u-2', attributes: { country: 'US', plan: 'free' } },
      { attributes: {} },
    ];
    for (const context of contexts) {
      const server = forContext(flags, { ...context, userId: context.userId ?? 'anon-7' });
      const page = createClient({
        sdkKey: DEMO.prodClientKey,
        baseUrl: 'http://127.0.0.1:9', // never reached before the first read
        bootstrap: browserBootstrap(flags),
        context,
        anonymousId: 'anon-7',
        persist: false,
        events: false,
      });
      reference.clients.push(page);
      // What hydration reads: synchronously, from the bootstrap, before any fetch.
      const onPage = page.getAll();
      const rendered = Object.fromEntries(Object.keys(onPage).map((key) => [key, server.get(key)]));
      expect(onPage).toEqual(rendered);
      expect(page.getDetails('checkout-button-color').reason).not.toBe('ERROR');
      await page.close();
    }
  });

  it('is plain JSON, deeply frozen, and the same object until the snapshot changes', async () => {
    const flags = await serverFlags();
    const first = browserBootstrap(flags)!;
    expect(browserBootstrap(flags)).toBe(first);
    expect(Object.isFrozen(first.flags['checkout-button-color']!.variations)).toBe(true);
    expect(() => {
      (first.flags['checkout-button-color']!.variations as unknown[])[0] = 'MUTATED';
    }).toThrow(TypeError);
    expect(forContext(flags, {}).get('checkout-button-color', 'none')).not.toBe('MUTATED');
    const { version } = await reference.server.publish('production', { ...first, flags: { ...first.flags, extra: { ...first.flags['checkout-button-color']!, salt: 'extra' } } });
    await flags.refresh();
    const next = browserBootstrap(flags)!;
    expect(next).not.toBe(first);
    expect(next.version).toBe(version);
    expect(Object.keys(next.flags)).toContain('extra');
  });

  it('is undefined before the client has a snapshot, and for an object flagplane did not make', async () => {
    const starting = createClient({ sdkKey: DEMO.prodServerKey, baseUrl: 'http://127.0.0.1:9', events: false, readyTimeout: 50 });
    reference.clients.push(starting);
    expect(browserBootstrap(starting)).toBeUndefined();
    expect(browserBootstrap({ get: () => 'mock' })).toBeUndefined();
    const tested = createTestClient({ flags: { theme: 'dark' } });
    expect(browserBootstrap(tested)?.flags.theme).toBeDefined();
  });
});
