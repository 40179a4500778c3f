import { describe, expect, it } from 'vitest';
import { StreamError } from '../../src/stream/stream-error';
import { initialStreamState, streamTransition, type StreamEvent, type StreamState, type StreamStep } from '../../src/stream/stream-machine';

const connecting = initialStreamState;
const streaming: StreamState = { connection: 'streaming', attempt: 0, heartbeatMs: 1000, handshakeMs: 30_000 };
const reconnecting: StreamState = { ...streaming, connection: 'reconnecting', attempt: 2 };
const stopped: StreamState = { ...streaming, connection: 'stopped' };

const message = (frame: unknown): StreamEvent => ({ type: 'message', data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
const closed = (code: number, reason = ''): StreamEvent => ({ type: 'close', code, reason });
const reported = (closeCode: number | null, reason: string | RegExp) =>
  expect.objectContaining({ name: 'StreamError', code: 'stream', closeCode, reason: typeof reason === 'string' ? reason : expect.stringMatching(reason) });
/**
 * The step of a reconnect from `state`, the `attempt`-th since the last connected, with random 0.
 * `reconnecting` and `stopped` have no socket: the shell closes the current one.
 */
const reconnectFrom = (state: StreamState, attempt: number, delay: number, report?: unknown): StreamStep => ({
  state: { ...state, connection: 'reconnecting', attempt },
  timer: delay,
  ...(report ? { report: report as StreamError } : {}),
});
const stopFrom = (state: StreamState, report?: unknown): StreamStep => ({
  state: { ...state, connection: 'stopped' },
  timer: null,
  ...(report ? { report: report as StreamError } : {}),
});

/**
 * A row of the table. The last known version the shell reads is 7 unless a row gives another;
 * jitter is 0 in the table (`random`), stream-backoff.test.ts covers the rest of it.
 */
type Row = [name: string, state: StreamState, event: StreamEvent, expected: StreamStep, lastKnownVersion?: number | null];

const handshake: Row[] = [
  ['start: connecting (the shell opens a socket) and the handshake window', { ...connecting, handshakeMs: 10_000 }, { type: 'start' }, { state: { ...connecting, handshakeMs: 10_000 }, timer: 10_000 }],
  ['open (the socket opened) re-arms the handshake window, for connected, and sends nothing', { ...connecting, handshakeMs: 10_000 }, { type: 'open' }, { state: { ...connecting, handshakeMs: 10_000 }, timer: 10_000 }],
  ['a ping before connected is not answered (the server would close with 4400)', connecting, message({ type: 'ping', ts: 5 }), { state: connecting, timer: 30_000 }],
  [
    'the timer before connected: the handshake failed, reconnect and report',
    { ...connecting, handshakeMs: 10_000 },
    { type: 'timer' },
    reconnectFrom({ ...connecting, handshakeMs: 10_000 }, 1, 1000, reported(null, 'silent for 10000 ms')),
  ],
  [
    'connected: streaming, heartbeat taken from it, exactly one subscribe with its environment',
    connecting,
    message({ type: 'connected', protocol: 1, environmentId: 'staging', version: 3, heartbeatMs: 500 }),
    {
      state: { connection: 'streaming', attempt: 0, heartbeatMs: 500, handshakeMs: 30_000 },
      timer: 1000,
      send: { type: 'subscribe', environmentId: 'staging', lastKnownVersion: 7 },
    },
  ],
  [
    'connected subscribes with lastKnownVersion null when the client has no snapshot',
    connecting,
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 3, heartbeatMs: 15_000 }),
    { state: { ...streaming, heartbeatMs: 15_000 }, timer: 30_000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: null } },
    null,
  ],
  [
    'connected resets the reconnect attempts',
    { ...connecting, attempt: 6 },
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 1000 }),
    { state: streaming, timer: 2000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 } },
    1,
  ],
  [
    'connected without a usable heartbeatMs keeps the previous one',
    { ...connecting, heartbeatMs: 4000 },
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 'soon' }),
    { state: { ...streaming, heartbeatMs: 4000 }, timer: 8000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 } },
    1,
  ],
  [
    'connected without an environmentId is a broken frame: reconnect and report',
    connecting,
    message({ type: 'connected', protocol: 1, version: 1, heartbeatMs: 1000 }),
    reconnectFrom(connecting, 1, 1000, reported(null, /^bad frame \{"type":"connected"/)),
  ],
];

const streamingRows: Row[] = [
  ['snapshot.updated notifies updated with its version', streaming, message({ type: 'snapshot.updated', environmentId: 'production', version: 9 }), { state: streaming, timer: 2000, notify: { kind: 'updated', version: 9 } }],
  ['snapshot.resync notifies resync with its version', streaming, message({ type: 'snapshot.resync', environmentId: 'production', version: 4, reason: 'operator' }), { state: streaming, timer: 2000, notify: { kind: 'resync', version: 4 } }],
  ['ping is answered with pong and the same ts', streaming, message({ type: 'ping', ts: 1_700_000_000_123.5 }), { state: streaming, timer: 2000, send: { type: 'pong', ts: 1_700_000_000_123.5 } }],
  ['a pong from the server only proves the connection alive', streaming, message({ type: 'pong', ts: 1 }), { state: streaming, timer: 2000 }],
  ['an unknown type is ignored, but proves the connection alive', streaming, message({ type: 'snapshot.patch', ops: [] }), { state: streaming, timer: 2000 }],
  ['a JSON object without a type is ignored', streaming, message({ hello: 'world' }), { state: streaming, timer: 2000 }],
  ['snapshot.updated without a numeric version notifies nothing', streaming, message({ type: 'snapshot.updated', version: '9' }), { state: streaming, timer: 2000 }],
  ['a ping without a numeric ts is not answered', streaming, message({ type: 'ping' }), { state: streaming, timer: 2000 }],
  ['a frame that is not JSON: reconnect and report', streaming, message('not json {'), reconnectFrom(streaming, 1, 1000, reported(null, 'bad frame not json {'))],
  ['JSON that is not an object: reconnect and report', streaming, message('42'), reconnectFrom(streaming, 1, 1000, reported(null, 'bad frame 42'))],
  ['a binary frame (passed as an empty string): reconnect and report', streaming, message(''), reconnectFrom(streaming, 1, 1000, reported(null, 'bad frame '))],
  ['a binary frame (a WebSocket message whose data is not a string): the same', streaming, { type: 'message', data: new ArrayBuffer(4) }, reconnectFrom(streaming, 1, 1000, reported(null, 'bad frame '))],
  ['the silence timer: reconnect and report', streaming, { type: 'timer' }, reconnectFrom(streaming, 1, 1000, reported(null, 'silent for 2000 ms'))],
];

const closeRows: Row[] = [
  ['1001 (going away) while streaming: reconnects after random × 1 s, no report, no attempt counted', streaming, closed(1001, 'going away'), { state: { ...streaming, connection: 'reconnecting' }, timer: 0 }],
  ['1001 before connected (the server went away during the handshake): the backoff, no report', connecting, closed(1001, 'going away'), reconnectFrom(connecting, 1, 1000)],
  ['1012 (service restart) is not going away: the backoff', streaming, closed(1012, 'service restart'), reconnectFrom(streaming, 1, 1000)],
  ['1006 (abnormal) reconnects without a report', streaming, closed(1006), reconnectFrom(streaming, 1, 1000)],
  ['1000 from the server reconnects (a close the client asked for is never seen)', streaming, closed(1000), reconnectFrom(streaming, 1, 1000)],
  ['an unknown code reconnects without a report', streaming, closed(4000, 'custom'), reconnectFrom(streaming, 1, 1000)],
  ['4400 reconnects and reports', streaming, closed(4400, 'subscribe.lastKnownVersion must be…'), reconnectFrom(streaming, 1, 1000, reported(4400, 'subscribe.lastKnownVersion must be…'))],
  ['4401 stops for good and reports', connecting, closed(4401, 'unknown SDK key'), stopFrom(connecting, reported(4401, 'unknown SDK key'))],
  ['4403 stops for good and reports', streaming, closed(4403, 'the SDK key has been revoked'), stopFrom(streaming, reported(4403, 'the SDK key has been revoked'))],
  ['a transport error reconnects and reports', connecting, { type: 'error', cause: new Error('ECONNREFUSED') }, reconnectFrom(connecting, 1, 1000, reported(null, 'transport error'))],
  ['a transport that throws stops for good and reports', connecting, { type: 'open-failed', cause: new SyntaxError('bad url') }, stopFrom(connecting, reported(null, 'cannot open: bad url'))],
  ['the reconnect timer: connecting (a new socket) and the handshake window', reconnecting, { type: 'timer' }, { state: { ...reconnecting, connection: 'connecting' }, timer: 30_000 }],
];

const closeRequested: Row[] = (
  [
    ['connecting', connecting],
    ['streaming', streaming],
    ['reconnecting', reconnecting],
  ] as const
).map(([name, state]): Row => [`stop (close() was called) while ${name}: stopped, timer cleared, socket closed, no report`, state, { type: 'stop' }, stopFrom(state)]);

// Stale events (a dropped socket's, anything but stop once stopped) never reach the machine:
// the shell drops them, see stream-close.test.ts. Another stop changes nothing.
const again: Row[] = [['stop while stopped (close() twice): still stopped, no report', stopped, { type: 'stop' }, stopFrom(stopped)]];

describe('streamTransition', () => {
  it.each([...handshake, ...streamingRows, ...closeRows, ...closeRequested, ...again])('%s', (_name, state, event, expected, lastKnownVersion = 7) => {
    const step = streamTransition(Object.freeze(state), event, 0, lastKnownVersion);
    expect(step).toEqual(expected);
    if (expected.report) expect(step.report).toBeInstanceOf(StreamError);
  });

  it('keeps the cause of a transport error', () => {
    const cause = new Error('ECONNREFUSED');
    expect(streamTransition(connecting, { type: 'error', cause }, 0, 7).report?.cause).toBe(cause);
  });

  it('sends nothing before connected and exactly one subscribe after it, in a whole handshake', () => {
    const events: StreamEvent[] = [
      { type: 'start' },
      { type: 'open' },
      message({ type: 'ping', ts: 1 }),
      message({ type: 'snapshot.future', x: 1 }),
      message({ type: 'connected', protocol: 1, environmentId: 'production', version: 5, heartbeatMs: 15_000 }),
      message({ type: 'snapshot.updated', environmentId: 'production', version: 6 }),
    ];
    let state = initialStreamState;
    const sent: Array<{ after: string; message: unknown }> = [];
    for (const event of events) {
      const step = streamTransition(state, event, 0, 3);
      state = step.state;
      if (step.send) sent.push({ after: event.type === 'message' ? String(event.data) : event.type, message: step.send });
    }
    expect(sent).toEqual([{ after: expect.stringContaining('"connected"'), message: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 3 } }]);
    expect(state.connection).toBe('streaming');
  });
});

describe('frames the server should never send', () => {
  // Before the fix: stream-machine.ts onFrame only checks `typeof version == 'number'`.
  it.each([
    ['a negative version', -1],
    ['a fractional version', 2.5],
    ['a version beyond the safe integers', 1e21],
    ['an infinite version (1e400 parses to Infinity)', '1e400'],
  ])('snapshot.updated with %s is ignored like a mistyped member (no notify)', (_name, version) => {
    const data = `{"type":"snapshot.updated","environmentId":"production","version":${version}}`;
    const step = streamTransition(streaming, { type: 'message', data }, 0, 7);
    expect(step.notify).toBeUndefined();
    expect(step.state).toEqual(streaming);
  });

  // Before the fix: `typeof ts == 'number'` lets Infinity through; JSON.stringify turns it into null.
  it('a ping whose ts is not finite (1e400) is not answered with a pong the server would reject (ts: null)', () => {
    const step = streamTransition(streaming, { type: 'message', data: '{"type":"ping","ts":1e400}' }, 0, 7);
    const sent = step.send ? (JSON.parse(JSON.stringify(step.send)) as { ts: unknown }) : undefined;
    expect(sent === undefined || typeof sent.ts === 'number').toBe(true);
  });

  // Before the fix: `Object(frame) !== frame` is false for an array, which is then ignored like a typeless object.
  it.each(['[]', '[{"type":"snapshot.updated","version":9}]'])('a JSON array (%s) is not a JSON object: reported and answered by a reconnect', (data) => {
    const step = streamTransition(streaming, { type: 'message', data }, 0, 7);
    expect(step.state.connection).toBe('reconnecting');
    expect(step.report?.reason).toBe('bad frame ' + data);
  });

  it('JSON null (which Object() turns into {}) is reported and answered by a reconnect, also while connecting', () => {
    const data = 'null';
    const step = streamTransition(initialStreamState, { type: 'message', data }, 0, 7);
    expect(step.state.connection).toBe('reconnecting');
    expect(step.report?.reason).toBe('bad frame ' + data);
  });
});
