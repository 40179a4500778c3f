// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/shared/errors';
import type { HttpResult } from '../../src/http/http-types';
import { harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import type { Reply } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';

const failedToFetch: HttpResult = { kind: 'network-error', cause: new TypeError('Failed to fetch') };

/** A reply the test settles later. */
function deferred() {
  let settle!: (reply: Reply) => void;
  const reply = new Promise<Reply>((resolve) => (settle = resolve));
  return { reply, settle };
}

const leave = () => window.dispatchEvent(new Event('pagehide'));
/** The back-forward cache shows the page again (a `pageshow` that is not the page's load). */
const comeBack = () => window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));

afterEach(() => {
  localStorage.clear();
  comeBack();
});

describe('the page going away', () => {
  it('a snapshot fetch and an overlay fetch the page ends are not failures: no onError, no error event', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: true }));
    const { client, errors, setHandler } = harness(plane.handler, { events: true, flushInterval: 0, persist: false });
    await client.ready();
    const overlay = deferred();
    plane.identityReply = () => overlay.reply;
    const identified = client.identify('u-1', { plan: 'pro' });
    const poll = deferred();
    setHandler((request) => (request.url.includes('/snapshot') ? poll.reply : plane.handler(request)));
    const refreshed = client.refresh();

    leave();
    // What Chromium does right after pagehide: every request in flight fails with "Failed to fetch".
    overlay.settle(failedToFetch);
    poll.settle(failedToFetch);
    await identified;
    await waitFor(() => plane.batches.length > 0, 2000, 'the pagehide flush');
    await client.flush();
    expect(errors).toEqual([]);
    expect(plane.events.filter((event) => event.type === 'error')).toEqual([]);
    expect(plane.events).toContainEqual(expect.objectContaining({ type: 'identify', userId: 'u-1' }));
    expect(client.getStatus().error).toBeNull();

    // Back from the back-forward cache, the client fetches at once and takes what changed.
    setHandler(plane.handler);
    plane.publish(snapshotOf(2, { a: false }));
    comeBack();
    await waitFor(() => client.get('a') === false, 2000, 'the fetch of a page shown again');
    await refreshed;
    await client.close();
  });

  it('an events send the page ended is put back and sent again, unreported', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: true }));
    const send = deferred();
    let sends = 0;
    const { client, errors } = harness((request) => (request.url.endsWith('/events') && sends++ === 0 ? send.reply : plane.handler(request)), { events: true, flushInterval: 0, persist: false, context: { userId: 'u' } });
    await client.ready();
    client.get('a');
    const flushed = client.flush();
    leave();
    send.settle(failedToFetch);
    await flushed;
    // The retry after the backoff (1 s for the first failure).
    await waitFor(() => plane.events.some((event) => event.key === 'a'), 3000, 'the evaluation event sent again');
    expect(plane.events.filter((event) => event.key === 'a')).toHaveLength(1);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a failure while the page stays is reported, and so is one of a request made after the page came back', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: true }));
    const { client, errors, setHandler } = harness(plane.handler, { persist: false });
    await client.ready();
    setHandler((request) => (request.url.includes('/snapshot') ? failedToFetch : plane.handler(request)));
    await client.refresh();
    expect(errors).toEqual([expect.any(NetworkError)]);

    leave();
    comeBack();
    await waitFor(() => errors.length === 2, 2000, 'the failure of the fetch after pageshow');
    expect(errors[1]).toBeInstanceOf(NetworkError);
    await client.close();
  });

  it('close() removes the page listeners: a later pagehide and pageshow start nothing', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: true }));
    const { client, requests } = harness(plane.handler, { persist: false });
    await client.ready();
    await client.close();
    const before = requests.length;
    leave();
    comeBack();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests).toHaveLength(before);
  });
});
