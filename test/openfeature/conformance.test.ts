// Issue 24: what OpenFeature's published conformance suites check of a provider — typed
// resolution with reasons and variants, targeting from the merged context, flag metadata,
// errors, hooks, provider states — in scenarios of our own, run for both providers inside
// the real SDKs against the reference server over HTTP. docs/openfeature.md lists where
// flagplane differs from the suites on purpose (DISABLED, CACHED).
import * as server from '@openfeature/server-sdk';
import * as web from '@openfeature/web-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { wsTransport } from '../../adapters/ws';
import { FlagplaneServerProvider, FlagplaneWebProvider } from '../../openfeature/index';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import type { ClientOptions } from '../../src/options';
import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';
import { DEMO } from '../helpers/reference-server';
import { waitFor } from '../helpers/wait-for';

/** An on flag with no rules serving `keys[served]`'s variation to everyone (OpenFeature's STATIC). */
const fixed = (variations: JsonValue[], variationKeys: string[], served: number, extra: Partial<Flag> = {}): Flag => ({
  on: true,
  variations,
  variationKeys,
  offVariation: 0,
  rules: [],
  fallthrough: { variation: served },
  salt: variationKeys.join('-'),
  clientSide: true,
  ...extra,
});

const SNAPSHOT: FlagSnapshot = {
  schemaVersion: 1,
  version: 0,
  environmentId: 'production',
  flags: {
    'new-onboarding': fixed([false, true], ['off', 'on'], 1),
    'welcome-text': fixed(['Hello', 'Welcome back'], ['plain', 'warm'], 1),
    'upload-limit-mb': fixed([10, 250], ['small', 'large'], 1),
    'sample-ratio': fixed([0.1, 0.75], ['low', 'high'], 1),
    'hero-layout': fixed([{ columns: 1 }, { columns: 3, dense: true }], ['single', 'grid'], 1),
    'numbered-variations': { ...fixed(['first', 'second'], [], 1), variationKeys: undefined },
    // Who gets which discount: the first rule that holds decides.
    'discount-tier': {
      ...fixed(['none', 'standard', 'gold', 'prospect'], ['none', 'standard', 'gold', 'prospect'], 1),
      rules: [
        { id: 'not-a-customer', conditions: [{ kind: 'attribute', attribute: 'customer', op: 'is', values: [false] }], serve: { variation: 3 } },
        { id: 'staff-and-vips', conditions: [{ kind: 'attribute', attribute: 'email', op: 'endsWith', values: ['@vip.test'] }], serve: { variation: 2 } },
        { id: 'veterans', conditions: [{ kind: 'attribute', attribute: 'age', op: 'gte', values: [65] }], serve: { variation: 2 } },
      ],
    },
    'legacy-search': fixed(['legacy', 'modern'], ['legacy', 'modern'], 1, { on: false }),
    'half-rollout': fixed(['a', 'b'], ['arm-a', 'arm-b'], 0, {
      fallthrough: { rollout: [{ variation: 0, weight: 50_000 }, { variation: 1, weight: 50_000 }] },
    }),
    'described-flag': fixed([true, false], ['yes', 'no'], 0, {
      metadata: { team: 'growth', reviewed: true, ticket: 1234, confidence: 0.95 },
    }),
  },
};

let reference: ReferenceServer;
let keys: { client: string; server: string };

beforeAll(async () => {
  reference = await startReferenceServer({ port: 0 });
  keys = { client: await reference.createKey('production', 'client'), server: await reference.createKey('production', 'server') };
  await reference.publish('production', SNAPSHOT);
});
afterAll(() => reference.close());

const quiet = (sdkKey: string, extra: Partial<ClientOptions> = {}): ClientOptions => ({
  sdkKey,
  baseUrl: reference.baseUrl,
  pollInterval: 0,
  events: false,
  persist: false,
  syncTabs: false,
  ...extra,
});

type Context = Record<string, string | number | boolean>;
type Details = { value: unknown; reason?: string; variant?: string; errorCode?: string; flagMetadata: Record<string, unknown> };
type Kind = 'boolean' | 'string' | 'number' | 'object';

/**
 * One provider inside its SDK, as the scenarios use it: `evaluate` resolves a flag for a context
 * (the web SDK takes it as its static context first), `hooks` records what hooks saw.
 */
interface Harness {
  name: string;
  start(extra?: Partial<ClientOptions>, sdkKey?: string): Promise<void>;
  evaluate(kind: Kind, key: string, fallback: JsonValue, context?: Context): Promise<Details>;
  status(): string;
  close(): Promise<void>;
}

const webHarness: Harness = {
  name: 'FlagplaneWebProvider (@openfeature/web-sdk)',
  async start(extra = {}, sdkKey = keys.client) {
    await web.OpenFeature.setProviderAndWait(new FlagplaneWebProvider(quiet(sdkKey, extra)));
  },
  async evaluate(kind, key, fallback, context = {}) {
    await web.OpenFeature.setContext(context);
    const of = web.OpenFeature.getClient();
    const read = { boolean: of.getBooleanDetails, string: of.getStringDetails, number: of.getNumberDetails, object: of.getObjectDetails }[kind];
    return read.call(of, key, fallback as never) as Details;
  },
  status: () => web.OpenFeature.getClient().providerStatus,
  async close() {
    await web.OpenFeature.close();
    await web.OpenFeature.setContext({});
  },
};

const serverHarness: Harness = {
  name: 'FlagplaneServerProvider (@openfeature/server-sdk)',
  async start(extra = {}, sdkKey = keys.server) {
    await server.OpenFeature.setProviderAndWait(new FlagplaneServerProvider(quiet(sdkKey, extra)));
  },
  async evaluate(kind, key, fallback, context = {}) {
    const of = server.OpenFeature.getClient();
    const read = { boolean: of.getBooleanDetails, string: of.getStringDetails, number: of.getNumberDetails, object: of.getObjectDetails }[kind];
    return (await read.call(of, key, fallback as never, context)) as Details;
  },
  status: () => server.OpenFeature.getClient().providerStatus,
  async close() {
    await server.OpenFeature.close();
  },
};

describe.each([webHarness, serverHarness])('$name', (harness) => {
  afterEach(() => harness.close());

  describe('typed resolution of flags that serve everyone the same (STATIC)', () => {
    it.each([
      ['boolean', 'new-onboarding', false, true, 'on'],
      ['string', 'welcome-text', 'Hi', 'Welcome back', 'warm'],
      ['number', 'upload-limit-mb', 1, 250, 'large'],
      ['number', 'sample-ratio', 0, 0.75, 'high'],
      ['object', 'hero-layout', {}, { columns: 3, dense: true }, 'grid'],
    ] as const)('%s %s: the value, reason STATIC and the variation’s name', async (kind, key, fallback, value, variant) => {
      await harness.start();
      expect(await harness.evaluate(kind, key, fallback)).toMatchObject({ value, reason: 'STATIC', variant, flagMetadata: {} });
    });

    it('a flag without variationKeys reports the variation’s index as its variant', async () => {
      await harness.start();
      expect(await harness.evaluate('string', 'numbered-variations', 'x')).toMatchObject({ value: 'second', reason: 'STATIC', variant: '1' });
    });
  });

  describe('targeting from the context the SDK hands the provider', () => {
    it.each([
      ['a visitor who is not a customer (a boolean attribute)', { targetingKey: 'u1', customer: false }, 'prospect'],
      ['a customer with a VIP address', { targetingKey: 'u2', customer: true, email: 'ada@vip.test' }, 'gold'],
      ['a customer of 70', { targetingKey: 'u3', customer: true, age: 70 }, 'gold'],
    ])('%s: TARGETING_MATCH with the rule’s variation', async (_who, context, variant) => {
      await harness.start();
      expect(await harness.evaluate('string', 'discount-tier', 'none', context)).toMatchObject({ value: variant, reason: 'TARGETING_MATCH', variant });
    });

    it('no rule holds: the fallthrough, reason DEFAULT (the flag has rules, so it is not STATIC)', async () => {
      await harness.start();
      const details = await harness.evaluate('string', 'discount-tier', 'none', { targetingKey: 'u4', customer: true, email: 'bo@example.com', age: 30 });
      expect(details).toMatchObject({ value: 'standard', reason: 'DEFAULT', variant: 'standard' });
    });

    it('a rollout: SPLIT, and the same arm for the same targetingKey every time', async () => {
      await harness.start();
      const arms = new Set<string | undefined>();
      for (let i = 0; i < 40; i++) {
        const details = await harness.evaluate('string', 'half-rollout', 'x', { targetingKey: `user-${i}` });
        expect(details.reason).toBe('SPLIT');
        expect(details.variant).toBe(details.value === 'a' ? 'arm-a' : 'arm-b');
        expect((await harness.evaluate('string', 'half-rollout', 'x', { targetingKey: `user-${i}` })).value).toBe(details.value);
        arms.add(details.variant);
      }
      expect([...arms].sort()).toEqual(['arm-a', 'arm-b']);
    });
  });

  describe('flag metadata', () => {
    it('the flag’s own metadata, each type as it is, and nothing else', async () => {
      await harness.start();
      const { flagMetadata } = await harness.evaluate('boolean', 'described-flag', false);
      expect(flagMetadata).toEqual({ team: 'growth', reviewed: true, ticket: 1234, confidence: 0.95 });
    });

    it('none for a flag without metadata, nor for a flag the snapshot lacks', async () => {
      await harness.start();
      expect((await harness.evaluate('boolean', 'new-onboarding', false)).flagMetadata).toEqual({});
      expect((await harness.evaluate('boolean', 'no-such-flag', false)).flagMetadata).toEqual({});
    });
  });

  describe('errors answer the caller’s default', () => {
    it('FLAG_NOT_FOUND for a key the snapshot lacks', async () => {
      await harness.start();
      expect(await harness.evaluate('string', 'no-such-flag', 'kept')).toMatchObject({ value: 'kept', reason: 'ERROR', errorCode: 'FLAG_NOT_FOUND' });
    });

    it.each([
      ['number', 'welcome-text', 7],
      ['boolean', 'upload-limit-mb', false],
      ['string', 'hero-layout', 'flat'],
      ['object', 'new-onboarding', { off: true }],
    ] as const)('TYPE_MISMATCH reading %s from %s', async (kind, key, fallback) => {
      await harness.start();
      expect(await harness.evaluate(kind, key, fallback)).toMatchObject({ value: fallback, reason: 'ERROR', errorCode: 'TYPE_MISMATCH' });
    });
  });

  it('a disabled flag serves its off variation, DISABLED (a decision: docs/openfeature.md)', async () => {
    await harness.start();
    expect(await harness.evaluate('string', 'legacy-search', 'caller-default')).toMatchObject({ value: 'legacy', reason: 'DISABLED', variant: 'legacy' });
  });

  it('hooks see the provider’s details: before, after and finally on success; error and finally on a failure', async () => {
    await harness.start();
    const seen: string[] = [];
    const hook = {
      before: () => void seen.push('before'),
      after: (_context: unknown, details: Details) => void seen.push(`after ${String(details.value)} ${details.reason} ${details.variant}`),
      error: (_context: unknown, error: { code?: string }) => void seen.push(`error ${error.code}`),
      finally: (_context: unknown, details: Details) => void seen.push(`finally ${details.errorCode ?? 'ok'}`),
    };
    const sdk = harness === webHarness ? web.OpenFeature : server.OpenFeature;
    sdk.addHooks(hook as never);
    try {
      await harness.evaluate('boolean', 'new-onboarding', false);
      expect(seen).toEqual(['before', 'after true STATIC on', 'finally ok']);
      seen.length = 0;
      await harness.evaluate('number', 'welcome-text', 0);
      expect(seen).toEqual(['before', 'error TYPE_MISMATCH', 'finally TYPE_MISMATCH']);
    } finally {
      sdk.clearHooks();
    }
  });

  describe('provider states', () => {
    it('a revoked key: FATAL at once (no wait for readyTimeout), and every evaluation answers PROVIDER_FATAL', async () => {
      const revoked = await reference.createKey('production', harness === webHarness ? 'client' : 'server');
      await reference.revokeKey(revoked);
      const started = Date.now();
      await expect(harness.start({ readyTimeout: 10_000 }, revoked)).rejects.toMatchObject({ code: 'PROVIDER_FATAL' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(harness.status()).toBe('FATAL');
      expect(await harness.evaluate('boolean', 'new-onboarding', false)).toMatchObject({ value: false, reason: 'ERROR', errorCode: 'PROVIDER_FATAL' });
    });

    it('a key revoked while streaming (close 4401/4403, no polling): FATAL from the stream alone', async () => {
      const key = await reference.createKey('production', harness === webHarness ? 'client' : 'server');
      await harness.start({ streamUrl: reference.baseUrl, streamTransport: wsTransport }, key);
      expect(harness.status()).toBe('READY');
      await reference.revokeKey(key);
      await waitFor(() => harness.status() === 'FATAL', 5_000, 'FATAL');
      expect(await harness.evaluate('boolean', 'new-onboarding', false)).toMatchObject({ value: false, errorCode: 'PROVIDER_FATAL' });
    });

    it('a data plane that is down is not fatal: ERROR, and READY once it answers', async () => {
      // A key of the demo configuration, which the server started again on that port knows too.
      const key = harness === webHarness ? DEMO.prodClientKey : DEMO.prodServerKey;
      const down = await startReferenceServer({ port: 0 });
      const port = down.port;
      await down.close();
      await expect(harness.start({ baseUrl: `http://127.0.0.1:${port}`, readyTimeout: 300 }, key)).rejects.toThrow(/readyTimeout/);
      expect(harness.status()).toBe('ERROR');
      const back = await startReferenceServer({ port });
      try {
        await waitFor(() => harness.status() === 'READY', 10_000, 'READY');
      } finally {
        await harness.close();
        await back.close();
      }
    });
  });
});
