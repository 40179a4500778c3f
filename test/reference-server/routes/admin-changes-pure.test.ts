// The pure parts of the change feed and the console's reads: the SSE parser, the activity
// coalescing, and the rule that a late answer never replaces a newer environment.
import { describe, expect, it } from 'vitest';
import { createSseReader, type FeedEvent } from '../../../reference-server/console/sse-reader';
import { withEnvironment } from '../../../reference-server/console/admin-reads';
import type { EnvironmentInfo } from '../../../reference-server/console/api';
import { createActivityTracker } from '../../../reference-server/routes/admin-activity';
import { sseEvent } from '../../../reference-server/routes/admin-change-kinds';

describe('createSseReader', () => {
  it('reads the same events however the stream is cut, skipping comments, with LF or CRLF', () => {
    const text = `${sseEvent('ready', { heartbeatMs: 20 })}: heartbeat\n\n${sseEvent('published', { version: 2 }).replaceAll('\n', '\r\n')}`;
    const whole: FeedEvent[] = [];
    createSseReader((event) => whole.push(event)).push(text);
    expect(whole).toEqual([
      { event: 'ready', data: '{"heartbeatMs":20}' },
      { event: 'published', data: '{"version":2}' },
    ]);
    for (let size = 1; size < 8; size++) {
      const cut: FeedEvent[] = [];
      const reader = createSseReader((event) => cut.push(event));
      for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
      expect(cut).toEqual(whole);
    }
  });

  it('joins data lines, names an unnamed event "message", and holds an unfinished event back', () => {
    const events: FeedEvent[] = [];
    const reader = createSseReader((event) => events.push(event));
    reader.push('data: a\ndata: b\n\nevent: x\ndata: c\n');
    expect(events).toEqual([{ event: 'message', data: 'a\nb' }]);
    reader.push('\n');
    expect(events.at(-1)).toEqual({ event: 'x', data: 'c' });
  });
});

describe('createActivityTracker', () => {
  it('reports changed stream counts and the events counted since the last drain, and nothing when idle', () => {
    const streams: Record<string, number> = { production: 0, staging: 2 };
    const tracker = createActivityTracker({ environmentIds: () => Object.keys(streams), streams: (id) => streams[id]! });
    tracker.reset();
    expect(tracker.drain()).toEqual([]);
    streams.production = 3;
    tracker.received('staging', 'identify', 2);
    tracker.received('staging', 'diagnostics', 1);
    tracker.received('staging', 'identify', 1);
    tracker.received('staging', 'analytics', 0);
    expect(tracker.drain()).toEqual([
      { kind: 'streams', environmentId: 'production', streams: 3 },
      { kind: 'events', environmentId: 'staging', identify: 3, analytics: 0, diagnostics: 1 },
    ]);
    expect(tracker.drain()).toEqual([]);
  });
});

describe('withEnvironment', () => {
  const info = (version: number, streams = 0) => ({ id: 'production', kind: 'production', version, versions: [version], streams, snapshot: { schemaVersion: 1, version, flags: {} } }) as unknown as EnvironmentInfo;
  it('replaces an older entry, keeps a newer one, and keeps the array when nothing changed', () => {
    const shown = [info(3)];
    expect(withEnvironment(shown, info(4))).toEqual([info(4)]);
    expect(withEnvironment(shown, info(2))).toBe(shown);
    expect(withEnvironment(shown, info(3))).toBe(shown);
    expect(withEnvironment(shown, info(3, 1))).toEqual([info(3, 1)]);
    expect(withEnvironment(null, info(3))).toBeNull();
  });
});
