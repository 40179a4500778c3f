// @vitest-environment happy-dom
import { act } from '@testing-library/react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagsClient, useFlagsStatus } from '../../react/index';
import type { ClientOptions, FlagsClient } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { QUIET } from './fixtures';
import { created } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

let root: Root | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  if (root) act(() => root!.unmount());
  root = undefined;
  document.body.innerHTML = '';
  localStorage.clear();
  for (const client of created.splice(0)) await client.close();
});

// What the server fetched (GET /sdk/v1/snapshot) and hands to the browser as `bootstrap`.
const bootstrap = snapshotOf(7, { 'new-checkout': true, banner: 'Hello from the snapshot', limits: { seats: 5 } });

let browserClient: FlagsClient | undefined;
function Page() {
  const checkout = useFlag('new-checkout', false);
  const banner = useFlag('banner', 'default banner');
  const limits = useFlag('limits', { seats: 1 });
  const { status, connection, source, version } = useFlagsStatus();
  browserClient = useFlagsClient();
  return (
    <main>
      <p id="checkout">{checkout ? 'new checkout' : 'old checkout'}</p>
      <p id="banner">{banner}</p>
      <p id="seats">{limits.seats}</p>
      <p id="status">{`${status}/${connection}/${source}/${version}`}</p>
    </main>
  );
}

function app(options: ClientOptions) {
  return (
    <FlagsProvider options={options}>
      <Page />
    </FlagsProvider>
  );
}

/** Renders as a server would: no `window`, so the provider knows no effect will follow. */
function renderOnServer(options: ClientOptions): string {
  vi.stubGlobal('window', undefined);
  try {
    return renderToString(app(options));
  } finally {
    vi.unstubAllGlobals();
  }
}

const textOf = (container: HTMLElement, id: string) => container.querySelector(`#${id}`)!.textContent;

describe('server rendering with a bootstrap snapshot', () => {
  it('renders the real values and closes the server-side client at once', async () => {
    const server = createFakeTransport(() => 'hang');
    // Events and persistence left on (flushAt 1 would send at the first read): the server's
    // throwaway client must do neither.
    const html = renderOnServer({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, flushAt: 1, transport: server.transport });

    expect(html).toContain('new checkout');
    expect(html).toContain('Hello from the snapshot');
    expect(html).toContain('<p id="seats">5</p>');
    // The status the browser's client will have while hydrating, not the server's `stopped`.
    expect(html).toContain('ready/polling/bootstrap/7');

    expect(created).toHaveLength(1);
    expect(created[0]!.getStatus().connection).toBe('stopped');
    await act(async () => {});
    expect(server.requests.map((request) => [request.method, request.signal.aborted])).toEqual([['GET', true]]);
    expect(localStorage.length).toBe(0);
  });

  it('hydrates that HTML without a mismatch, then follows the live client', async () => {
    const serverSide = createFakeTransport(() => 'hang');
    const html = renderOnServer({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, ...QUIET, transport: serverSide.transport });

    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const recoverable = vi.fn();

    const snapshots = snapshotServer(bootstrap);
    const browser = createFakeTransport(() => 'hang');
    await act(async () => {
      root = hydrateRoot(container, app({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, ...QUIET, transport: browser.transport }), {
        onRecoverableError: recoverable,
      });
    });

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);

    // The browser's client is live: a newer snapshot reaches the hydrated page.
    snapshots.publish(snapshotOf(8, { 'new-checkout': false, banner: 'Fresh', limits: { seats: 9 } }));
    browser.setHandler(snapshots.handler);
    await act(() => browserClient!.refresh());
    expect(textOf(container, 'checkout')).toBe('old checkout');
    expect(textOf(container, 'banner')).toBe('Fresh');
    expect(textOf(container, 'seats')).toBe('9');
    expect(textOf(container, 'status')).toBe('ready/polling/network/8');
  });
});
