// @vitest-environment happy-dom
import { act, render, screen } from '@testing-library/react';
import { startTransition, Suspense, useState, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails } from '../../react/index';
import { snapshotOf } from '../helpers/snapshots';
import { text, captureErrors, hangingClientFrom, useAutoCleanup } from './fixtures';
import { created } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

useAutoCleanup(created);

/**
 * Data a component waits for by throwing its promise (Suspense's original protocol: React
 * retries the boundary when it settles; `use()` of a promise made outside React is not
 * retried by act() for an update, only for a mount).
 */
function pendingData() {
  let settled = false;
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done)).then(() => {
    settled = true;
  });
  return {
    wait: () => {
      if (!settled) throw promise;
    },
    resolve: async () => {
      resolve();
      await promise;
    },
  };
}

describe('concurrent rendering', () => {
  it('a transition that re-renders two readers, with the flag changed while it is pending, commits one value to both', async () => {
    const client = await hangingClientFrom();
    const errors = captureErrors();
    let setTick!: (tick: number) => void;
    const data = pendingData();
    function Slow({ tick }: { tick: number }) {
      if (tick > 0) data.wait();
      return null;
    }
    function Reader({ id, tick }: { id: string; tick: number }) {
      return <span data-testid={id}>{`${useFlag('a', 'fb')}@${tick}`}</span>;
    }
    function App() {
      const [tick, set] = useState(0);
      setTick = set;
      return (
        <>
          <Reader id="first" tick={tick} />
          <Slow tick={tick} />
          <Reader id="second" tick={tick} />
        </>
      );
    }
    render(
      <FlagsProvider client={client}>
        <App />
      </FlagsProvider>,
    );
    // The transition suspends after rendering `first`; the old UI stays on screen.
    await act(async () => startTransition(() => setTick(1)));
    expect([text('first'), text('second')]).toEqual(['a1@0', 'a1@0']);
    // The flag changes while the transition is pending: the visible UI follows at once…
    act(() => client.setOverrides({ a: 'mid' }));
    expect([text('first'), text('second')]).toEqual(['mid@0', 'mid@0']);
    // …and the transition commits the new value to both readers.
    await act(() => data.resolve());
    expect([text('first'), text('second')]).toEqual(['mid@1', 'mid@1']);
    expect(errors).not.toHaveBeenCalled();
  });

  it('a key switched in a transition to a flag of another type, with its fallback, never shows a type-mismatch default', async () => {
    const client = await hangingClientFrom(snapshotOf(1, { label: 'hello', count: 7 }));
    const errors = captureErrors();
    const seen: string[] = [];
    let choose!: (pick: { key: string; fallback: string | number }) => void;
    function Reader() {
      const [pick, set] = useState<{ key: string; fallback: string | number }>({ key: 'label', fallback: 'none' });
      choose = set;
      const details = useFlagDetails(pick.key, pick.fallback);
      seen.push(`${details.key}=${JSON.stringify(details.value)}/${details.errorCode ?? '-'}`);
      return <span data-testid="reader">{JSON.stringify(details.value)}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Reader />
      </FlagsProvider>,
    );
    await act(async () => startTransition(() => choose({ key: 'count', fallback: 0 })));
    expect(text('reader')).toBe('7');
    act(() => client.setOverrides({ count: 8 }));
    expect(text('reader')).toBe('8');
    // The old key no longer re-renders the reader.
    const renders = seen.length;
    act(() => client.setOverrides({ count: 8, label: 'changed' }));
    expect(seen.length).toBe(renders);
    expect(seen.filter((line) => line.includes('TYPE_MISMATCH'))).toEqual([]);
    expect(errors).not.toHaveBeenCalled();
  });
});

describe('Suspense around readers while a flag changes', () => {
  it('a reader hidden behind a fallback follows a change made meanwhile and matches a visible reader when shown again', async () => {
    const client = await hangingClientFrom();
    const errors = captureErrors();
    const data = pendingData();
    let suspend!: () => void;
    function Gate({ children }: { children: ReactNode }) {
      const [waiting, setWaiting] = useState(false);
      suspend = () => setWaiting(true);
      if (waiting) data.wait();
      return children;
    }
    function Reader({ id }: { id: string }) {
      return <span data-testid={id}>{useFlag('a', 'fb')}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Reader id="outside" />
        <Suspense fallback={<span data-testid="loading" />}>
          <Gate>
            <Reader id="inside" />
          </Gate>
        </Suspense>
      </FlagsProvider>,
    );
    // An urgent update that suspends hides the shown content behind the fallback.
    await act(async () => suspend());
    expect(screen.getByTestId('loading')).toBeTruthy();
    act(() => client.setOverrides({ a: 'while hidden' }));
    expect(text('outside')).toBe('while hidden');
    await act(() => data.resolve());
    expect(screen.queryByTestId('loading')).toBeNull();
    expect(text('inside')).toBe('while hidden');
    act(() => client.setOverrides({ a: 'after' }));
    expect([text('outside'), text('inside')]).toEqual(['after', 'after']);
    expect(errors).not.toHaveBeenCalled();
  });
});
