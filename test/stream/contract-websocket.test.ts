import { afterAll, beforeAll } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { openWebSocket } from '../../adapters/websocket';
import { describeStreamContract } from './contract-cases';

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

describeStreamContract('adapters/websocket (global WebSocket)', openWebSocket);
