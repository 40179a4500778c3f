import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('version gating across sources and ETags', () => {
  it('the same version with another ETag: no notification, the snapshot object and status are kept, the new ETag is sent next', async () => {
    const bodies: Array<[number, string]> = [
      [1, '"a"'],
      [1, '"b"'],
      [1, '"b"'],
    ];
    const { client, requests } = harness(
      () => {
        const [version, etag] = bodies.shift() ?? [1, '"b"'];
        return jsonResponse(200, snapshotOf(version, { a: 1 }), { etag });
      },
      { pollInterval: 1000 },
    );
    const listener = vi.fn();
    client.subscribe(listener);
    await vi.advanceTimersByTimeAsync(0);
    const details = client.getDetails('a');
    const status = client.getStatus();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests[1]!.headers['if-none-match']).toBe('"a"');
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests[2]!.headers['if-none-match']).toBe('"b"');
    expect(listener).toHaveBeenCalledTimes(1);
    expect(client.getDetails('a')).toBe(details);
    expect(client.getStatus()).toBe(status);
    await client.close();
  });

  it('an older version after a newer one keeps the newer ETag for the next request', async () => {
    const bodies = [snapshotOf(5, { a: 5 }), snapshotOf(3, { a: 3 })];
    const { client, requests } = harness(
      () => {
        const body = bodies.shift() ?? snapshotOf(5, { a: 5 });
        return jsonResponse(200, body, { etag: `"snapshot-${body.version}"` });
      },
      { pollInterval: 1000 },
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.get('a')).toBe(5);
    expect(requests[2]!.headers['if-none-match']).toBe('"snapshot-5"');
    await client.close();
  });
});
