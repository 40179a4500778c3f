// @vitest-environment happy-dom
import { act, render } from '@testing-library/react';
import { Component, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag } from '../../react/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport } from '../helpers/fake-transport';
import { FlagText, QUIET, snapshotV, type RenderCounts, text, hangingClientServing, useAutoCleanup } from './fixtures';
import { created, listeners } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

useAutoCleanup(created);

describe('errors inside components', () => {
  class Boundary extends Component<{ children: ReactNode }, { failed: boolean }> {
    override state = { failed: false };
    static getDerivedStateFromError() {
      return { failed: true };
    }
    override render() {
      return this.state.failed ? <span data-testid="boundary">caught</span> : this.props.children;
    }
  }

  it('a reader that throws on a new value is caught by its boundary; other readers keep following the client', async () => {
    const client = await hangingClientServing();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    function Fragile() {
      const value = useFlag('a', 'a1');
      if (value === 'boom') throw new Error('cannot render boom');
      return <span data-testid="fragile">{value}</span>;
    }
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <Boundary>
          <Fragile />
        </Boundary>
        <FlagText flag="b" counts={counts} />
      </FlagsProvider>,
    );
    act(() => client.setOverrides({ a: 'boom' }));
    expect(text('boundary')).toBe('caught');
    act(() => client.setOverrides({ a: 'boom', b: 'after' }));
    expect(text('b')).toBe('"after"');
    // The failed subtree unsubscribed: no listener of `a` is left behind.
    expect(listeners(client)).toBe(1);
    errors.mockRestore();
  });

  it('an app listener that throws neither stops the readers nor reaches React; it is reported as a listener error', async () => {
    const { createClient } = await import('../../src/index');
    const reported: string[] = [];
    const client = createClient({
      sdkKey: CLIENT_KEY,
      baseUrl: BASE_URL,
      transport: createFakeTransport(() => 'hang').transport,
      bootstrap: snapshotV(1),
      onError: (error) => reported.push(error.code),
      ...QUIET,
    });
    client.subscribe(() => {
      throw new Error('app listener');
    });
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');
    expect(reported).toEqual(['listener']);
  });
});
