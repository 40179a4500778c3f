// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FlagsProvider, useFlagDetails, useFlags, useFlagsClient, useFlagsStatus } from '../../react/index';
import { createTestClient } from '../../testing/index';
import { FlagText, type RenderCounts } from '../react/fixtures';
import { targetedSnapshot } from './fixtures';

afterEach(cleanup);

const text = (testId: string) => screen.getByTestId(testId).textContent;

describe('<FlagsProvider client={createTestClient(…)}>', () => {
  it('useFlag re-renders the readers of the flag set, and no other', () => {
    const client = createTestClient({ flags: { a: 'a1', b: 'b1' } });
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
        <FlagText flag="b" counts={counts} />
      </FlagsProvider>,
    );
    expect([text('a'), text('b')]).toEqual(['"a1"', '"b1"']);
    expect(counts).toEqual({ a: 1, b: 1 });
    act(() => client.set('a', 'a2'));
    expect(text('a')).toBe('"a2"');
    expect(counts).toEqual({ a: 2, b: 1 });
    act(() => client.set('a', 'a2'));
    expect(counts).toEqual({ a: 2, b: 1 });
  });

  it('useFlagDetails, useFlags and useFlagsStatus follow setSnapshot and setContext', () => {
    const client = createTestClient({ flags: {}, context: { attributes: { plan: 'pro' } } });
    function Panel() {
      const banner = useFlagDetails('banner', 'none');
      const status = useFlagsStatus();
      return <span data-testid="panel">{`${banner.value} ${banner.reason} v${status.version} ${JSON.stringify(useFlags())}`}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Panel />
      </FlagsProvider>,
    );
    expect(text('panel')).toBe('none ERROR v1 {}');
    act(() => client.setSnapshot(targetedSnapshot(4)));
    expect(text('panel')).toBe('pro TARGETING_MATCH v4 {"banner":"pro","theme":"dark"}');
    act(() => client.setContext({ attributes: { plan: 'free' } }));
    expect(text('panel')).toBe('everyone DEFAULT v4 {"banner":"everyone","theme":"dark"}');
  });

  it('useFlagsClient gives the test client, whose overrides re-render the reader', () => {
    const client = createTestClient({ flags: { a: 'a1' } });
    let fromHook: unknown;
    function Probe() {
      fromHook = useFlagsClient();
      return null;
    }
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <Probe />
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    expect(fromHook).toBe(client);
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');
  });
});
