// @vitest-environment happy-dom
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, FlagplaneError } from '../../src/index';
import { createTestClient } from '../../testing/index';
import Flags from './components/Flags.svelte';
import LegacyApp from './components/LegacyApp.svelte';
import LegacyRoot from './components/LegacyRoot.api4.svelte';
import FromStoreReader from './components/FromStoreReader.svelte';
import { countListeners, hangingClient, recorder, snapshotV, useAutoCleanup } from './fixtures';

useAutoCleanup();

const text = (testId: string) => screen.getByTestId(testId).textContent;
const KINDS = ['fromStore', 'dollar', 'legacy'] as const;

describe('flag(): one store per key, in runes and in Svelte 4 syntax', () => {
  it.each(KINDS)('%s: a change of flag A updates the readers of A and no reader of B', (kind) => {
    // B's value is an object: Svelte's stores notify on every `set` of an object, equal or not.
    const client = hangingClient(snapshotV(1, { b: { n: 1 } }));
    const { counts, seen } = recorder();
    render(Flags, { props: { client, seen, readers: [{ kind, key: 'a', fallback: 'fb' }, { kind, key: 'b', fallback: { n: 0 } }] } });
    expect([text(`${kind}:a`), text(`${kind}:b`)]).toEqual(['a1', '{"n":1}']);
    expect(counts).toEqual({ [`${kind}:a`]: 1, [`${kind}:b`]: 1 });

    const reads = vi.spyOn(client, 'get');
    client.setOverrides({ a: 'a2' });
    flushSync();
    expect([text(`${kind}:a`), text(`${kind}:b`)]).toEqual(['a2', '{"n":1}']);
    // B's store was not even told: it did not read its flag again.
    expect(reads.mock.calls.map(([key]) => key)).toEqual(['a']);
    expect(counts).toEqual({ [`${kind}:a`]: 2, [`${kind}:b`]: 1 });

    // An event that changes no value these readers read (a flag nobody reads) updates nothing.
    client.setOverrides({ a: 'a2', c: 'c2' });
    flushSync();
    expect(counts).toEqual({ [`${kind}:a`]: 2, [`${kind}:b`]: 1 });
  });

  it('a Svelte 4 syntax app (legacy mode) sets the client and its readers follow it; getFlagsClient returns that client', () => {
    const client = hangingClient();
    const { counts, seen } = recorder();
    const { component } = render(LegacyApp, { props: { client, seen, keys: ['a', 'b'] } });
    expect((component as unknown as { found: unknown }).found).toBe(client);
    client.setOverrides({ b: 'b2' });
    flushSync();
    expect([text('legacy:a'), text('legacy:b')]).toEqual(['a1', 'b2']);
    expect(counts).toEqual({ 'legacy:a': 1, 'legacy:b': 2 });
  });

  it("a Svelte 4 root made with `new` (Svelte 4's component API) follows the client; $destroy() unsubscribes its stores", () => {
    const client = hangingClient();
    const listeners = countListeners(client);
    const { seen } = recorder();
    const app = new LegacyRoot({ target: document.body, props: { client, seen } });
    expect(text('legacy:a')).toBe('a1');
    expect(listeners()).toBe(1);
    client.setOverrides({ a: 'a2' });
    flushSync();
    expect(text('legacy:a')).toBe('a2');
    app.$destroy();
    expect(listeners()).toBe(0);
  });

  it('a change of context updates only the readers whose value changed', () => {
    const client = hangingClient();
    const { counts, seen } = recorder();
    const readers = KINDS.flatMap((kind) => [{ kind, key: 'banner', fallback: 'fb' }, { kind, key: 'a', fallback: 'fb' }]);
    render(Flags, { props: { client, seen, readers } });
    client.setContext({ attributes: { plan: 'pro' } });
    flushSync();
    for (const kind of KINDS) {
      expect([text(`${kind}:banner`), text(`${kind}:a`)]).toEqual(['pro', 'a1']);
      expect([counts[`${kind}:banner`], counts[`${kind}:a`]]).toEqual([2, 1]);
    }
  });

  it('serves the fallback for a flag the snapshot does not have, typed by it', () => {
    const client = hangingClient();
    const { seen } = recorder();
    render(Flags, { props: { client, seen, readers: [{ kind: 'dollar', key: 'missing', fallback: { seats: 3 } }] } });
    expect(text('dollar:missing')).toBe('{"seats":3}');
  });
});

describe('with a test client (docs/svelte.md "Testing components")', () => {
  it('set() updates the readers of that flag', () => {
    const client = createTestClient({ flags: { a: 'a1', b: 'b1' } });
    const { counts, seen } = recorder();
    render(Flags, { props: { client, seen, readers: [{ kind: 'dollar', key: 'a', fallback: 'fb' }, { kind: 'legacy', key: 'b', fallback: 'fb' }] } });
    client.set('a', 'a2');
    flushSync();
    expect([text('dollar:a'), text('legacy:b')]).toEqual(['a2', 'b1']);
    expect(counts).toEqual({ 'dollar:a': 2, 'legacy:b': 1 });
  });
});

describe('subscriptions', () => {
  it('a store is subscribed to the client only while a component reads it: unmounting leaves no listener', () => {
    const client = hangingClient();
    const listeners = countListeners(client);
    const { seen } = recorder();
    const readers = [...KINDS.map((kind) => ({ kind, key: 'a', fallback: 'fb' })), { kind: 'details', key: 'b', fallback: 'fb' }];
    const { unmount } = render(Flags, { props: { client, seen, readers } });
    // One per store: three flag stores, a details store and a status store.
    expect(listeners()).toBe(5);
    unmount();
    expect(listeners()).toBe(0);
    // The client's own listeners: a change after the unmount reaches nobody and throws nothing.
    client.setOverrides({ a: 'a2' });
    expect(listeners()).toBe(0);
  });
});

describe('flagDetails() and flagsStatus()', () => {
  it('the details carry the reason and version; the status store follows the client', async () => {
    const client = hangingClient();
    const { counts, seen } = recorder();
    render(Flags, { props: { client, seen, readers: [{ kind: 'details', key: 'a', fallback: 'fb' }] } });
    expect(text('details:a')).toBe('a1 DEFAULT v1');
    expect(text('status')).toBe('ready/polling/bootstrap/1');

    client.setOverrides({ a: 'mine' });
    flushSync();
    // An override is no snapshot's: no version.
    expect(text('details:a')).toBe('mine OVERRIDE vnull');
    // A change of another flag leaves the details object, and the text, as they were.
    client.setOverrides({ a: 'mine', b: 'b2' });
    flushSync();
    expect(counts['details:a']).toBe(2);

    await client.close();
    flushSync();
    expect(text('status')).toBe('ready/stopped/bootstrap/1');
  });
});

describe('without a client', () => {
  it('a store created where no parent set a client throws a ConfigError that says what to do', () => {
    let thrown: unknown;
    try {
      render(FromStoreReader, { props: { key: 'a', fallback: 'fb', seen: recorder().seen } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toBeInstanceOf(FlagplaneError);
    expect((thrown as ConfigError).code).toBe('config');
    // Svelte appends the component stack to the message.
    expect((thrown as Error).message).toMatch(/^flag\(\): no flags client in this component's context; call setFlagsClient\(client\) in a parent component\b/);
  });
});
