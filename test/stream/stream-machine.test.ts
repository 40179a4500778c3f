import { describe, expect, it } from 'vitest';
import { StreamError } from '../../src/stream/stream-error';
import { initialStreamState, streamTransition } from '../../src/stream/stream-machine';
import type { StreamEvent, StreamState, StreamStep } from '../../src/stream/stream-machine';

const connecting = initialStreamState;
const streaming: StreamState = { connection: 'streaming', attempt: 0, heartbeatMs: 1000, environmentId: 'production' };
const reconnecting: StreamState = { ...streaming, connection: 'reconnecting', attempt: 2 };
const stopped: StreamState = { ...streaming, connection: 'stopped' };

// Jitter is 0 in the table; stream-backoff.test.ts covers the rest of it.
const message = (frame: unknown, lastKnownVersion: number | null = 7): StreamEvent => ({
  type: 'message',
  data: typeof frame === 'string' ? frame : JSON.stringify(frame),
  lastKnownVersion,
  random: 0,
});
const closed = (code: number, reason = ''): StreamEvent => ({ type: 'socket-closed', code, reason, random: 0 });
const reported = (closeCode: number | null, reason: string | RegExp) =>
  expect.objectContaining({ name: 'StreamError', code: 'stream', closeCode, reason: typeof reason === 'string' ? reason : expect.stringMatching(reason) });
/** The step of a reconnect from `state`, the `attempt`-th since the last connected, with random 0. */
const reconnectFrom = (state: StreamState, attempt: number, delay: number, report?: unknown): StreamStep => ({
  state: { ...state, connection: 'reconnecting', attempt },
  timer: delay,
  socket: 'close',
  ...(report ? { report: report as StreamError } : {}),
});
const stopFrom = (state: StreamState, report?: unknown): StreamStep => ({
  state: { ...state, connection: 'stopped' },
  timer: null,
  socket: 'close',
  ...(report ? { report: report as StreamError } : {}),
});

type Row = [name: string, state: StreamState, event: StreamEvent, expected: StreamStep];

const handshake: Row[] = [
  ['connect-requested opens a socket and arms the silence window (2 × 15000 before any connected)', connecting, { type: 'connect-requested' }, { state: connecting, timer: 30_000, socket: 'open' }],
  ['socket-open re-arms the silence window and sends nothing', connecting, { type: 'socket-open' }, { state: connecting, timer: 30_000 }],
  ['a ping before connected is not answered (the server would close with 4400)', connecting, message({ type: 'ping', ts: 5 }), { state: connecting, timer: 30_000 }],
  [
    'connected: streaming, heartbeat and environment taken from it, exactly one subscribe',
    connecting,
    message({ type: 'connected', protocol: 1, environmentId: 'staging', version: 3, heartbeatMs: 500 }, 7),
    {
      state: { connection: 'streaming', attempt: 0, heartbeatMs: 500, environmentId: 'staging' },
      timer: 1000,
      send: { type: 'subscribe', environmentId: 'staging', lastKnownVersion: 7 },
    },
  ],
  [
    'connected subscribes with lastKnownVersion null when the client has no snapshot',
    connecting,
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 3, heartbeatMs: 15_000 }, null),
    { state: { ...streaming, heartbeatMs: 15_000 }, timer: 30_000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: null } },
  ],
  [
    'connected resets the reconnect attempts',
    { ...connecting, attempt: 6 },
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 1000 }, 1),
    { state: streaming, timer: 2000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 } },
  ],
  [
    'connected without a usable heartbeatMs keeps the previous one',
    { ...connecting, heartbeatMs: 4000 },
    message({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 'soon' }, 1),
    { state: { ...streaming, heartbeatMs: 4000 }, timer: 8000, send: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 } },
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
  ['the silence timer: reconnect and report', streaming, { type: 'timer-fired', random: 0 }, reconnectFrom(streaming, 1, 1000, reported(null, 'silent for 2000 ms'))],
];

const closeRows: Row[] = [
  ['1001 (going away) reconnects without a report', streaming, closed(1001, 'going away'), reconnectFrom(streaming, 1, 1000)],
  ['1006 (abnormal) reconnects without a report', streaming, closed(1006), reconnectFrom(streaming, 1, 1000)],
  ['1000 from the server reconnects (a close the client asked for is never seen)', streaming, closed(1000), reconnectFrom(streaming, 1, 1000)],
  ['an unknown code reconnects without a report', streaming, closed(4000, 'custom'), reconnectFrom(streaming, 1, 1000)],
  ['4400 reconnects and reports', streaming, closed(4400, 'subscribe.lastKnownVersion must be…'), reconnectFrom(streaming, 1, 1000, reported(4400, 'subscribe.lastKnownVersion must be…'))],
  ['4401 stops for good and reports', connecting, closed(4401, 'unknown SDK key'), stopFrom(connecting, reported(4401, 'unknown SDK key'))],
  ['4403 stops for good and reports', streaming, closed(4403, 'the SDK key has been revoked'), stopFrom(streaming, reported(4403, 'the SDK key has been revoked'))],
  ['a transport error reconnects and reports', connecting, { type: 'socket-error', cause: new Error('ECONNREFUSED'), random: 0 }, reconnectFrom(connecting, 1, 1000, reported(null, 'transport error'))],
  ['a transport that throws stops for good and reports', connecting, { type: 'open-failed', cause: new SyntaxError('bad url') }, stopFrom(connecting, reported(null, 'cannot open'))],
  ['the reconnect timer opens a new socket', reconnecting, { type: 'timer-fired', random: 0 }, { state: { ...reconnecting, connection: 'connecting' }, timer: 2000, socket: 'open' }],
];

const closeRequested: Row[] = (
  [
    ['connecting', connecting],
    ['streaming', streaming],
    ['reconnecting', reconnecting],
  ] as const
).map(([name, state]): Row => [`close-requested while ${name}: stopped, timer cleared, socket closed, no report`, state, { type: 'close-requested' }, stopFrom(state)]);

const everyEvent: StreamEvent[] = [
  { type: 'connect-requested' },
  { type: 'socket-open' },
  message({ type: 'snapshot.updated', version: 9 }),
  closed(1001),
  { type: 'socket-error', cause: new Error('x'), random: 0 },
  { type: 'open-failed', cause: new Error('x') },
  { type: 'timer-fired', random: 0 },
  { type: 'close-requested' },
];

const ignored: Row[] = [
  ...everyEvent.map((event): Row => [`stopped ignores ${event.type}`, stopped, event, { state: stopped }]),
  ...everyEvent
    .filter((event) => event.type !== 'timer-fired' && event.type !== 'close-requested')
    .map((event): Row => [`reconnecting (no socket) ignores a stale ${event.type}`, reconnecting, event, { state: reconnecting }]),
];

describe('streamTransition', () => {
  it.each([...handshake, ...streamingRows, ...closeRows, ...closeRequested, ...ignored])('%s', (_name, state, event, expected) => {
    const step = streamTransition(Object.freeze(state), event);
    expect(step).toEqual(expected);
    if (expected.report) expect(step.report).toBeInstanceOf(StreamError);
  });

  it('keeps the cause of a transport error', () => {
    const cause = new Error('ECONNREFUSED');
    expect(streamTransition(connecting, { type: 'socket-error', cause, random: 0 }).report?.cause).toBe(cause);
  });

  it('sends nothing before connected and exactly one subscribe after it, in a whole handshake', () => {
    const events: StreamEvent[] = [
      { type: 'connect-requested' },
      { type: 'socket-open' },
      message({ type: 'ping', ts: 1 }),
      message({ type: 'snapshot.future', x: 1 }),
      message({ type: 'connected', protocol: 1, environmentId: 'production', version: 5, heartbeatMs: 15_000 }, 3),
      message({ type: 'snapshot.updated', environmentId: 'production', version: 6 }),
    ];
    let state = initialStreamState;
    const sent: Array<{ after: string; message: unknown }> = [];
    for (const event of events) {
      const step = streamTransition(state, event);
      state = step.state;
      if (step.send) sent.push({ after: event.type === 'message' ? event.data : event.type, message: step.send });
    }
    expect(sent).toEqual([{ after: expect.stringContaining('"connected"'), message: { type: 'subscribe', environmentId: 'production', lastKnownVersion: 3 } }]);
    expect(state.connection).toBe('streaming');
  });
});
