// @vitest-environment happy-dom
import { render, screen, act } from '@testing-library/react';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails, useFlagsClient, type FlagsProviderProps, useFlags } from '../../react/index';
import { createClient, type EvaluationDetails, type FlagsClient, type JsonValue } from '../../src/index';
import { BASE_URL, CLIENT_KEY, harness } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { QUIET, useAutoCleanup, text, captureErrors } from './fixtures';
import { created } from './created-clients';

// Records every client created through the core: the ones a provider creates are closed after each test too.
vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

// The app's side of the typing story: declare the defaults once. The augmentation holds
// for the whole program, so these `typed-*` keys are used by this file only: every other
// key keeps the untyped overloads (and any provider `defaults`) in the other tests.
// (The type checker, `npx tsc --noEmit`, is what fails when these expectations break.)
const defaults = { 'typed-checkout': false, 'typed-banner': 'Welcome', 'typed-limits': { seats: 1 } };
type AppDefaults = typeof defaults;
declare module '../../react/index' {
  interface Register {
    defaults: AppDefaults;
  }
}

const clients: FlagsClient[] = [];
useAutoCleanup(clients, created);

describe('typing from the registered defaults', () => {
  it('types useFlag, useFlagDetails and useFlagsClient from the registered defaults', () => {
    const transport = createFakeTransport(() => 'hang').transport;
    const bootstrap = snapshotOf(1, { 'typed-checkout': true, 'typed-banner': 'Hi', 'typed-limits': { seats: 4 }, other: 3 });
    const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport, bootstrap, defaults, ...QUIET });
    clients.push(client);

    function Typed() {
      const checkout = useFlag('typed-checkout');
      const banner = useFlag('typed-banner');
      const limits = useFlag('typed-limits', { seats: 2 });
      const details = useFlagDetails('typed-banner');
      const typedClient = useFlagsClient();
      expectTypeOf(checkout).toEqualTypeOf<boolean>();
      expectTypeOf(banner).toEqualTypeOf<string>();
      expectTypeOf(limits).toEqualTypeOf<{ seats: number }>();
      expectTypeOf(details).toEqualTypeOf<EvaluationDetails<string>>();
      expectTypeOf(typedClient.get('typed-checkout')).toEqualTypeOf<boolean>();
      // A fallback of another type types the read from the fallback, and that is what is
      // served: the client answers a type mismatch with the fallback.
      const mismatch = useFlag('typed-checkout', 'yes');
      expectTypeOf(mismatch).toEqualTypeOf<string>();
      return <span data-testid="typed">{JSON.stringify([checkout, banner, limits.seats, details.reason, mismatch])}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Typed />
      </FlagsProvider>,
    );
    expect(screen.getByTestId('typed').textContent).toBe('[true,"Hi",4,"DEFAULT","yes"]');
  });

  it('types unregistered keys from the fallback, widening literals', () => {
    const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: createFakeTransport(() => 'hang').transport, ...QUIET });
    clients.push(client);
    function Untyped() {
      const flag = useFlag('other-flag', false);
      const count = useFlag('other-count', 3);
      const label = useFlag('other-label', 'x');
      const variant = useFlag<'control' | 'treatment'>('other-variant', 'control');
      const config = useFlag('other-config', { retries: 1, tags: ['a'] });
      const unknown = useFlag('other-unknown');
      expectTypeOf(flag).toEqualTypeOf<boolean>();
      expectTypeOf(count).toEqualTypeOf<number>();
      expectTypeOf(label).toEqualTypeOf<string>();
      expectTypeOf(variant).toEqualTypeOf<'control' | 'treatment'>();
      expectTypeOf(config).toEqualTypeOf<{ retries: number; tags: string[] }>();
      expectTypeOf(unknown).toEqualTypeOf<JsonValue | undefined>();
      expectTypeOf(useFlagDetails('other-flag', true)).toEqualTypeOf<EvaluationDetails<boolean>>();
      return <span data-testid="untyped">{JSON.stringify([flag, count, label, variant, config.retries, unknown ?? null])}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Untyped />
      </FlagsProvider>,
    );
    expect(screen.getByTestId('untyped').textContent).toBe('[false,3,"x","control",1,null]');
  });

  it('checks the provider props: a client or options, not both, and typed defaults', () => {
    const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, events: false, persist: false, transport: createFakeTransport(() => 'hang').transport });
    clients.push(client);
    expectTypeOf<{ client: typeof client }>().toExtend<FlagsProviderProps>();
    expectTypeOf<{ options: { sdkKey: string; baseUrl: string; defaults: { 'typed-checkout': true } } }>().toExtend<FlagsProviderProps>();
    expectTypeOf<{ options: { sdkKey: string; baseUrl: string; defaults: { 'typed-checkout': 'yes' } } }>().not.toExtend<FlagsProviderProps>();
    expectTypeOf<{ client: typeof client; options: { sdkKey: string; baseUrl: string } }>().not.toExtend<FlagsProviderProps>();
    expectTypeOf<{ children: null }>().not.toExtend<FlagsProviderProps>();
  });
});

describe('the typed API (Register, see types.test.tsx) at runtime', () => {
  // `typed-*` keys are registered by types.test.tsx: `typed-checkout` boolean, `typed-banner`
  // string, `typed-limits` { seats: number }. The served values here are of other JSON types.
  const defaults = { 'typed-checkout': false, 'typed-banner': 'Welcome', 'typed-limits': { seats: 1 } };

  it('a served value of another type than the registered default is never served, by any hook, and a later change back is followed', async () => {
    const { client, server } = await (async () => {
      const server = snapshotServer(snapshotOf(1, { 'typed-checkout': 'yes', 'typed-banner': 42, 'typed-limits': [1, 2] }));
      const h = harness(server.handler, { ...QUIET, defaults });
      created.push(h.client);
      await h.client.ready();
      return { client: h.client, server };
    })();
    const errors = captureErrors();
    const seen: unknown[] = [];
    function Typed() {
      const checkout: boolean = useFlag('typed-checkout');
      const banner: string = useFlag('typed-banner');
      const limits: { seats: number } = useFlag('typed-limits');
      const details = useFlagDetails('typed-checkout');
      const all = useFlags();
      seen.push([typeof checkout, typeof banner, Array.isArray(limits)]);
      return (
        <span data-testid="typed">
          {JSON.stringify([checkout, banner, limits.seats, details.errorCode ?? '-', all['typed-checkout'], all['typed-banner'], all['typed-limits']])}
        </span>
      );
    }
    render(
      <FlagsProvider client={client}>
        <Typed />
      </FlagsProvider>,
    );
    expect(text('typed')).toBe('[false,"Welcome",1,"TYPE_MISMATCH",false,"Welcome",{"seats":1}]');
    // An override of another type is not served either.
    act(() => client.setOverrides({ 'typed-checkout': 'on' }));
    expect(text('typed')).toBe('[false,"Welcome",1,"TYPE_MISMATCH",false,"Welcome",{"seats":1}]');
    act(() => client.setOverrides({}));
    server.publish(snapshotOf(2, { 'typed-checkout': true, 'typed-banner': 'Hi', 'typed-limits': { seats: 9 } }));
    await act(() => client.refresh());
    expect(text('typed')).toBe('[true,"Hi",9,"-",true,"Hi",{"seats":9}]');
    expect(seen.every((types) => JSON.stringify(types) === '["boolean","string",false]')).toBe(true);
    expect(errors).not.toHaveBeenCalled();
  });
});
