// @vitest-environment happy-dom
/**
 * No "WebSocket is closed before the connection is established" (issue 23): Chromium logs it
 * for close() on a CONNECTING WebSocket, and React StrictMode closes the provider's first
 * client as soon as it is made. A fake global WebSocket records each close() with the state
 * the socket was in.
 */
import { act, cleanup, render } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWebSocket, webSocketTransport } from '../../adapters/websocket';
import { defineStreamTransport } from '../../src/stream/index';
import { FlagsProvider } from '../../react/index';
import { createClient } from '../../src/index';
import { hangingClientOptions } from './fixtures';

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** A WHATWG WebSocket that opens only when the test says so. */
class FakeWebSocket {
  static made: FakeWebSocket[] = [];
  readyState = CONNECTING;
  /** The state the socket was in at each close(). */
  closes: number[] = [];
  onopen: ((event: { type: 'open' }) => void) | null = null;
  onmessage: unknown = null;
  onclose: ((event: { type: 'close'; code: number; reason: string }) => void) | null = null;
  onerror: unknown = null;
  constructor(readonly url: string) {
    FakeWebSocket.made.push(this);
  }
  send(): void {}
  close(code = 1005): void {
    this.closes.push(this.readyState);
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    queueMicrotask(() => this.onclose?.({ type: 'close', code, reason: '' }));
  }
  open(): void {
    this.readyState = OPEN;
    this.onopen?.({ type: 'open' });
  }
}

const globals = globalThis as { WebSocket?: unknown };
const streaming = { streamUrl: 'https://flags.example.com', streamTransport: webSocketTransport };
const closedWhileConnecting = () => FakeWebSocket.made.filter((socket) => socket.closes.includes(CONNECTING));

beforeEach(() => {
  FakeWebSocket.made = [];
  globals.WebSocket = FakeWebSocket;
});
afterEach(() => {
  cleanup();
  delete globals.WebSocket;
});

describe('a stream closed while its socket is connecting', () => {
  it.each([
    ['webSocketTransport', webSocketTransport],
    ['a transport on openWebSocket', defineStreamTransport(openWebSocket)],
  ])('%s never closes the socket while it connects: it closes it once it opens, and hears nothing from it', async (_name, streamTransport) => {
    const client = createClient(hangingClientOptions({ ...streaming, streamTransport }));
    const [socket] = FakeWebSocket.made;
    await client.close();
    expect(socket!.closes).toEqual([]);
    socket!.open();
    expect(socket!.closes).toEqual([OPEN]);
    expect(client.getStatus().connection).not.toBe('streaming');
  });

  it("StrictMode's throw-away client closes no socket while it connects, and the client that stays keeps its own", async () => {
    const options = hangingClientOptions(streaming);
    render(
      <StrictMode>
        <FlagsProvider options={options} />
      </StrictMode>,
    );
    await act(async () => {});
    expect(FakeWebSocket.made.length).toBeGreaterThanOrEqual(2);
    expect(closedWhileConnecting()).toEqual([]);
    const [first, ...others] = FakeWebSocket.made;
    first!.open();
    expect(first!.closes).toEqual([OPEN]);
    // The remounted provider's client: its socket is open and stays so.
    const kept = others.at(-1)!;
    kept.open();
    expect(kept.closes).toEqual([]);
    cleanup();
    expect(kept.closes).toEqual([OPEN]);
  });

  it('a reconnect (the handshake timed out) still closes it at once: a browser opens one socket per host at a time', async () => {
    const client = createClient(hangingClientOptions({ ...streaming, requestTimeout: 5 }));
    const [socket] = FakeWebSocket.made;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(socket!.closes).toEqual([CONNECTING]);
    await client.close();
  });
});
