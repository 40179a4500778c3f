import { afterAll, beforeAll } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { openWebSocket, webSocketTransport } from '../../adapters/websocket';
import { describeStreamContract } from './contract-cases';
import { spyGlobalWebSocket, spyTransport } from './servers';

// The browser path: the global WebSocket (played by ws's WHATWG-style class, for this file
// only), which cannot set headers, so the key travels as the flagplane.key subprotocol.
const globals = globalThis as { WebSocket?: unknown };
let original: unknown;
beforeAll(() => {
  original = globals.WebSocket;
  globals.WebSocket = WsWebSocket;
});
afterAll(() => {
  if (original === undefined) delete globals.WebSocket;
  else globals.WebSocket = original;
});

describeStreamContract('adapters/websocket openWebSocket (global WebSocket)', () => spyTransport(openWebSocket));
// The transport an app passes drives the global WebSocket without the SocketOpener layer.
describeStreamContract('adapters/websocket webSocketTransport (global WebSocket)', () => ({ transport: webSocketTransport, spy: spyGlobalWebSocket() }));
