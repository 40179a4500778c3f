import type { Check, CheckContext, HeldSnapshot } from './check-types';
import { fail } from './expect';
import { CLOSE_CODE, KEY_SUBPROTOCOL_PREFIX, STREAM_SUBPROTOCOL, UNKNOWN_KEY, streamEndpoint } from './rules';
import { StreamProbe } from './stream-probe';

const describe = (frame: unknown) => JSON.stringify(frame);

/** Opens a stream with `key` in the Authorization header, runs `use`, and closes it whatever happened. */
export async function withStream(
  context: CheckContext,
  use: (probe: StreamProbe) => Promise<void>,
  options: { key?: string; protocols?: string[] } = {},
): Promise<void> {
  const { streamUrl, key, timeoutMs } = context.target;
  const probe = await StreamProbe.open(streamEndpoint(streamUrl!), {
    protocols: options.protocols ?? [STREAM_SUBPROTOCOL],
    headers: { authorization: `Bearer ${options.key ?? key}` },
    timeoutMs,
  });
  try {
    await use(probe);
  } finally {
    probe.close();
  }
}

/** Reads the `connected` frame, which must come first. */
export async function expectConnected(probe: StreamProbe): Promise<Record<string, unknown>> {
  const frame = await probe.next('connected');
  if (frame.type !== 'connected') fail(`the first frame is not connected: ${describe(frame)}`);
  return frame;
}

/** Opens a stream with the key, reads `connected`, and runs `use` with the key's snapshot. */
async function withConnected(context: CheckContext, use: (probe: StreamProbe, held: HeldSnapshot) => Promise<void>): Promise<void> {
  const held = await context.snapshot();
  await withStream(context, async (probe) => {
    await expectConnected(probe);
    await use(probe, held);
  });
}

/** A ping with a fresh `ts`, and the pong that must echo it next: nothing may come before it. */
export async function expectPong(probe: StreamProbe, after: string): Promise<void> {
  const ts = Math.floor(Math.random() * 1e9);
  probe.send({ type: 'ping', ts });
  const frame = await probe.next(`the pong to ping ${ts}`);
  if (frame.type !== 'pong' || frame.ts !== ts) fail(`${after}: expected { type: "pong", ts: ${ts} }, got ${describe(frame)}`);
}

/** Subscribes at `lastKnownVersion` and expects the next frame to be `expected` (type and members). */
async function expectAnswer(probe: StreamProbe, environmentId: string, lastKnownVersion: number | null, expected: Record<string, unknown>) {
  probe.send({ type: 'subscribe', environmentId, lastKnownVersion });
  const what = `subscribe at ${lastKnownVersion}`;
  const frame = await probe.next(what);
  const matches = Object.entries(expected).every(([name, value]) => frame[name] === value);
  if (!matches) fail(`${what}: expected ${describe(expected)}, got ${describe(frame)}`);
}

export const streamChecks: Check[] = [
  {
    id: 'stream.connected',
    section: '§6.1, §6.2',
    title: 'a key in Authorization opens the stream on flagplane.v1; connected announces protocol 1, the environment, its version and heartbeatMs',
    async run(context) {
      const { environmentId, version } = await context.snapshot();
      await withStream(context, async (probe) => {
        if (probe.protocol !== STREAM_SUBPROTOCOL) fail(`selected subprotocol ${JSON.stringify(probe.protocol)}`);
        const frame = await expectConnected(probe);
        const heartbeat = frame.heartbeatMs;
        const ok = frame.protocol === 1 && frame.environmentId === environmentId && frame.version === version && typeof heartbeat === 'number' && heartbeat > 0;
        if (!ok) fail(`expected protocol 1, environmentId "${environmentId}", version ${version}, heartbeatMs > 0; got ${describe(frame)}`);
      });
    },
  },
  {
    id: 'stream.key-subprotocol',
    section: '§6.1',
    title: 'a key in the flagplane.key.<key> subprotocol opens the stream; the server selects flagplane.v1, never the key',
    async run(context) {
      const { streamUrl, key, timeoutMs } = context.target;
      const probe = await StreamProbe.open(streamEndpoint(streamUrl!), { protocols: [STREAM_SUBPROTOCOL, `${KEY_SUBPROTOCOL_PREFIX}${key}`], timeoutMs });
      try {
        if (probe.protocol !== STREAM_SUBPROTOCOL) fail(`selected subprotocol ${JSON.stringify(probe.protocol)}`);
        await expectConnected(probe);
      } finally {
        probe.close();
      }
    },
  },
  {
    id: 'stream.ping',
    section: '§6.2',
    title: 'a ping is answered by a pong echoing its ts',
    run: (context) => withConnected(context, (probe) => expectPong(probe, 'a ping')),
  },
  {
    id: 'stream.subscribe-current',
    section: '§6.2',
    title: 'subscribe at the current version is answered by nothing',
    run: (context) =>
      withConnected(context, async (probe, { environmentId, version }) => {
        probe.send({ type: 'subscribe', environmentId, lastKnownVersion: version });
        await expectPong(probe, `subscribe at the current ${version}`);
      }),
  },
  {
    id: 'stream.subscribe-behind',
    section: '§6.2',
    title: 'subscribe below the current version is answered at once by snapshot.updated with the current one (at version 0, nothing is below)',
    run: (context) =>
      withConnected(context, async (probe, { environmentId, version }) => {
        if (version > 0) await expectAnswer(probe, environmentId, version - 1, { type: 'snapshot.updated', environmentId, version });
      }),
  },
  {
    id: 'stream.subscribe-resync',
    section: '§6.2',
    title: 'subscribe at null or above the current version is answered by snapshot.resync (unknown-version, ahead-of-server)',
    run: (context) =>
      withConnected(context, async (probe, { environmentId, version }) => {
        await expectAnswer(probe, environmentId, null, { type: 'snapshot.resync', environmentId, version, reason: 'unknown-version' });
        await expectAnswer(probe, environmentId, version + 1, { type: 'snapshot.resync', environmentId, version, reason: 'ahead-of-server' });
      }),
  },
  {
    id: 'stream.bad-key',
    section: '§6.1, §6.4',
    title: 'an unknown key completes the upgrade and is closed with 4401',
    run: (context) => expectClose(context, CLOSE_CODE.badKey, { key: UNKNOWN_KEY }),
  },
  {
    id: 'stream.no-subprotocol',
    section: '§6.1, §6.4',
    title: 'a connection that does not offer flagplane.v1 is closed with 4400',
    run: (context) => expectClose(context, CLOSE_CODE.protocolError, { protocols: [] }),
  },
  {
    id: 'stream.bad-frame',
    section: '§6.2, §6.4',
    title: 'a frame that is not JSON is answered by a close with 4400',
    run: (context) => expectClose(context, CLOSE_CODE.protocolError, {}, async (probe) => {
      await expectConnected(probe);
      probe.send('flagplane check: not JSON');
    }),
  },
];

/** Opens a stream as `options` say, does `then`, and expects the server to close it with `code`. */
async function expectClose(context: CheckContext, code: number, options: { key?: string; protocols?: string[] }, then?: (probe: StreamProbe) => Promise<void>) {
  await withStream(context, async (probe) => {
    await then?.(probe);
    const closed = await probe.closedWithin(`the close with ${code}`);
    if (closed.code !== code) fail(`closed with ${closed.code}${closed.reason ? ` "${closed.reason}"` : ''}, not ${code}`);
  }, options);
}
