import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer, WebSocket as WsWebSocket } from 'ws';
import { openWebSocket, webSocketTransport } from '../../adapters/websocket';
import { openWs } from '../../adapters/ws';
import type { StreamSocketHandlers, SocketOpener } from '../../src/stream/socket-types';
import { countingScheduler, recordStream, SDK_KEY } from './harness';
import { DEMO, sleep, useReferenceServers, waitFor } from './servers';

const globals = globalThis as { WebSocket?: unknown };
let original: unknown;
beforeEach(() => {
  original = globals.WebSocket;
});
afterEach(() => {
  if (original === undefined) delete globals.WebSocket;
  else globals.WebSocket = original;
});

/** A server that records the headers of one WebSocket upgrade request, then hangs up. */
async function upgradeRecorder() {
  const requests: IncomingHttpHeaders[] = [];
  const server: Server = createServer();
  server.on('upgrade', (req, socket) => {
    requests.push(req.headers);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}/sdk/v1/stream`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function recordingHandlers() {
  const calls: string[] = [];
  const handlers: StreamSocketHandlers = {
    onOpen: () => calls.push('open'),
    onMessage: (data) => calls.push(`message ${data}`),
    onClose: (code) => calls.push(`close ${code}`),
    onError: () => calls.push('error'),
  };
  return { calls, handlers };
}

const protocols = ['flagplane.v1', `flagplane.key.${SDK_KEY}`];

describe('handshake headers', () => {
  it('adapters/ws sends Authorization: Bearer and offers flagplane.v1 only', async () => {
    const recorder = await upgradeRecorder();
    const { calls, handlers } = recordingHandlers();
    openWs(recorder.url, { protocols, sdkKey: SDK_KEY }, handlers);
    await waitFor(() => calls.includes('close 1006'), 'the hang-up');
    await recorder.close();
    expect(recorder.requests).toHaveLength(1);
    expect(recorder.requests[0]?.authorization).toBe(`Bearer ${SDK_KEY}`);
    expect(recorder.requests[0]?.['sec-websocket-protocol']).toBe('flagplane.v1');
    expect(calls).toEqual(['error', 'close 1006']);
  });

  it('adapters/websocket offers the key as a subprotocol and sends no Authorization', async () => {
    globals.WebSocket = WsWebSocket;
    const recorder = await upgradeRecorder();
    const { calls, handlers } = recordingHandlers();
    openWebSocket(recorder.url, { protocols, sdkKey: SDK_KEY }, handlers);
    await waitFor(() => calls.includes('close 1006'), 'the hang-up');
    await recorder.close();
    expect(recorder.requests[0]?.authorization).toBeUndefined();
    const offered = recorder.requests[0]?.['sec-websocket-protocol']?.split(',').map((protocol) => protocol.trim());
    expect(offered).toEqual(['flagplane.v1', `flagplane.key.${SDK_KEY}`]);
  });
});

describe('adapters/websocket without a global WebSocket', () => {
  it.each([
    ['openWebSocket', openWebSocket],
    ['webSocketTransport', webSocketTransport],
  ])('imports fine, and a stream on %s stops with a reported error instead of throwing', (_name, transport) => {
    delete globals.WebSocket;
    const { scheduler, pending } = countingScheduler();
    const stream = recordStream({ transport, scheduler });
    expect(stream.connections()).toEqual(['stopped']);
    // Node 20 has no global WebSocket: the message says what to use instead (docs/client.md, Stream).
    expect(stream.errors()).toMatchObject([
      {
        closeCode: null,
        reason: 'cannot open: no global WebSocket (Node 20): use wsTransport from flagplane/adapters/ws',
        message: 'stream failed: cannot open: no global WebSocket (Node 20): use wsTransport from flagplane/adapters/ws',
        cause: expect.any(ReferenceError),
      },
    ]);
    expect(pending.size).toBe(0);
  });

  it('looks the global up each time a socket opens, not at import time', () => {
    const constructed: string[] = [];
    const fakeWebSocket = (name: string) =>
      class {
        constructor(url: string, offered: string[]) {
          constructed.push(`${name} ${url} ${offered.join(',')}`);
        }
      };
    const { handlers } = recordingHandlers();
    globals.WebSocket = fakeWebSocket('first');
    openWebSocket('wss://a.test/sdk/v1/stream', { protocols, sdkKey: SDK_KEY }, handlers);
    globals.WebSocket = fakeWebSocket('second');
    openWebSocket('wss://b.test/sdk/v1/stream', { protocols, sdkKey: SDK_KEY }, handlers);
    expect(constructed).toEqual([
      `first wss://a.test/sdk/v1/stream flagplane.v1,flagplane.key.${SDK_KEY}`,
      `second wss://b.test/sdk/v1/stream flagplane.v1,flagplane.key.${SDK_KEY}`,
    ]);
  });
});

const adapters: Array<[string, SocketOpener]> = [
  ['adapters/ws', openWs],
  ['adapters/websocket', openWebSocket],
];

describe.each(adapters)('%s on a live server', (_name, transport) => {
  const servers = useReferenceServers();
  beforeEach(() => {
    globals.WebSocket = WsWebSocket;
  });

  it('send and close before the socket opened neither throw nor emit an unhandled error', async () => {
    const server = await servers.start();
    const { calls, handlers } = recordingHandlers();
    const socket = transport(`${server.wsUrl}/sdk/v1/stream`, { protocols: ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`], sdkKey: DEMO.prodClientKey }, handlers);
    expect(() => socket.send('{"type":"pong","ts":1}')).not.toThrow();
    expect(() => socket.close(1000)).not.toThrow();
    expect(() => socket.close(1000)).not.toThrow();
    await sleep(200);
    expect(calls.filter((call) => call.startsWith('message'))).toEqual([]);
  });

  it('delivers text frames and the close code, and send after close is a no-op', async () => {
    const server = await servers.start();
    const { calls, handlers } = recordingHandlers();
    const socket = transport(`${server.wsUrl}/sdk/v1/stream`, { protocols: ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`], sdkKey: DEMO.prodClientKey }, handlers);
    await waitFor(() => calls.some((call) => call.startsWith('message')), 'connected');
    expect(calls[0]).toBe('open');
    expect(JSON.parse((calls[1] as string).slice('message '.length))).toMatchObject({ type: 'connected', environmentId: 'production' });
    socket.close(1000);
    await waitFor(() => calls.includes('close 1000'), 'the close');
    expect(() => socket.send('{"type":"pong","ts":1}')).not.toThrow();
  });

  it('keeps a throwing handler from escaping into the socket', async () => {
    const server = await servers.start();
    const calls: string[] = [];
    const throwing = (name: string) => () => {
      calls.push(name);
      throw new Error(`${name} handler failed`);
    };
    const socket = transport(`${server.wsUrl}/sdk/v1/stream`, { protocols: ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`], sdkKey: DEMO.prodClientKey }, {
      onOpen: throwing('open'),
      onMessage: throwing('message'),
      onClose: throwing('close'),
      onError: throwing('error'),
    });
    await waitFor(() => calls.includes('message'), 'a message');
    socket.close(1000);
    await waitFor(() => calls.includes('close'), 'the close');
    // An exception escaping a ws listener would be an uncaught error and fail this run.
    expect(calls.slice(0, 2)).toEqual(['open', 'message']);
  });
});

describe.each(adapters)('%s frames', (_name, transport) => {
  beforeEach(() => {
    globals.WebSocket = WsWebSocket;
  });

  it('passes text frames as they are and binary frames as an empty string', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'flagplane.v1' });
    wss.on('connection', (ws) => {
      ws.send('{"type":"ping","ts":1}');
      ws.send(Buffer.from('{"type":"ping","ts":2}'), { binary: true });
      ws.close(4403, 'revoked');
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const address = wss.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const { calls, handlers } = recordingHandlers();
      transport(`ws://127.0.0.1:${port}/sdk/v1/stream`, { protocols, sdkKey: SDK_KEY }, handlers);
      await waitFor(() => calls.some((call) => call.startsWith('close')), 'the close');
      expect(calls).toEqual(['open', 'message {"type":"ping","ts":1}', 'message ', 'close 4403']);
    } finally {
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });
});

describe('webSocketTransport frames', () => {
  beforeEach(() => {
    globals.WebSocket = WsWebSocket;
  });

  it('keeps a callback that throws from escaping into the socket', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'flagplane.v1' });
    wss.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 15_000 }));
      ws.send(JSON.stringify({ type: 'snapshot.updated', environmentId: 'production', version: 2 }));
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const address = wss.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const { scheduler } = countingScheduler();
    const stream = recordStream({
      transport: webSocketTransport,
      streamUrl: `ws://127.0.0.1:${port}`,
      scheduler,
      // Each callback on the socket's events throws (the one inside close() runs in the test).
      onCallback: (entry) => {
        if (entry.type !== 'connection' || entry.connection !== 'stopped') throw new Error('the app failed');
      },
    });
    try {
      await waitFor(() => stream.notifies().length > 0, 'snapshot.updated');
      // An exception escaping a ws listener would be an uncaught error and fail this run.
      expect(stream.log.map((entry) => entry.type)).toEqual(['connection', 'notify']);
    } finally {
      stream.connection.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });

  it('takes a binary frame for a broken one: reported as bad frame, then a reconnect', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'flagplane.v1' });
    wss.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 15_000 }));
      ws.send(Buffer.from('{"type":"ping","ts":2}'), { binary: true });
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const address = wss.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const { scheduler } = countingScheduler();
    const stream = recordStream({ transport: webSocketTransport, streamUrl: `ws://127.0.0.1:${port}`, scheduler });
    try {
      await waitFor(() => stream.errors().length > 0, 'the report');
      expect(stream.errors()).toMatchObject([{ closeCode: null, reason: 'bad frame ' }]);
      expect(stream.connections()).toEqual(['streaming', 'reconnecting']);
    } finally {
      stream.connection.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });
});
