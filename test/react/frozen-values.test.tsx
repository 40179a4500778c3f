// @vitest-environment happy-dom
import { act, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails, useFlags } from '../../react/index';
import type { FlagsClient, JsonValue } from '../../src/index';
import { banner, expectUnchangeable } from '../helpers/frozen';
import { snapshotOf } from '../helpers/snapshots';
import { hangingClientFrom, text, useAutoCleanup } from './fixtures';

const clients: FlagsClient[] = [];
useAutoCleanup(clients);

/** What each render was served: the value of useFlag and useFlagDetails, and useFlags' object. */
const seen: Array<{ value: JsonValue; details: { value: JsonValue }; all: Readonly<Record<string, JsonValue>> }> = [];

function Banner() {
  const value = useFlag('banner', banner('fallback'));
  const details = useFlagDetails('banner', banner('fallback'));
  const all = useFlags();
  seen.push({ value, details, all });
  return <span data-testid="banner">{JSON.stringify(value)}</span>;
}

describe('the React hooks serve frozen values', () => {
  it('what useFlag, useFlagDetails and useFlags serve cannot be changed, for this user or the next', async () => {
    const client = await hangingClientFrom(snapshotOf(1, { banner: banner() }), { context: { userId: 'first' } });
    clients.push(client);
    render(
      <FlagsProvider client={client}>
        <Banner />
      </FlagsProvider>,
    );
    const { value, details, all } = seen.at(-1)!;
    expectUnchangeable(value);
    expectUnchangeable(details.value);
    expect(() => Object.assign(details, { value: 'MUTATED' })).toThrow(TypeError);
    expect(() => Object.assign(all, { banner: 'MUTATED' })).toThrow(TypeError);
    act(() => client.setContext({ userId: 'second' }));
    act(() => client.setOverrides({ other: 1 }));
    expect(text('banner')).toBe(JSON.stringify(banner()));
    expect(seen.at(-1)!.all.banner).toEqual(banner());
    expect(client.get('banner')).toEqual(banner());
  });
});
