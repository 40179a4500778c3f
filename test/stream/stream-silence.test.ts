import { describe, expect, it, vi } from 'vitest';
import { defaultScheduler } from '../../src/shared/scheduler';
import { connectedFrame, createFakeTransport, recordStream } from './harness';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

function streamingWithHeartbeat(heartbeatMs: number) {
  const fake = createFakeTransport();
  const stream = recordStream({ transport: fake.transport });
  fake.last.open();
  fake.last.receive(connectedFrame(heartbeatMs));
  return { fake, stream };
}

describe('silence detection (2 × heartbeatMs)', () => {
  it('closes a silent connection with 1000 after twice the announced heartbeat, reports it and reconnects', async () => {
    const { fake, stream } = streamingWithHeartbeat(1000);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.last.closeCalls).toEqual([]);
    expect(stream.connections()).toEqual(['streaming']);

    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets[0]?.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.connections()).toEqual(['streaming', 'reconnecting']);
    expect(stream.errors()).toMatchObject([{ code: 'stream', closeCode: null, reason: 'silent for 2000 ms' }]);

    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    expect(stream.connections()).toEqual(['streaming', 'reconnecting', 'connecting']);
    stream.connection.close();
  });

  it('reconnects after silence with the jitter of scheduler.random', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, scheduler: { ...defaultScheduler, random: () => 0.5 } });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(fake.last.closeCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1099);
    expect(fake.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
  });

  it('restarts the window on every frame: pings, other known messages and unknown types', async () => {
    const { fake, stream } = streamingWithHeartbeat(1000);
    const frames = [{ type: 'ping', ts: 1 }, { type: 'snapshot.future' }, { type: 'snapshot.updated', environmentId: 'production', version: 8 }, { type: 'pong', ts: 2 }];
    for (const frame of frames) {
      await vi.advanceTimersByTimeAsync(1900);
      fake.last.receive(frame);
    }
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.sockets).toHaveLength(1);
    expect(fake.last.closeCalls).toEqual([]);
    expect(stream.connections()).toEqual(['streaming']);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.last.closeCalls).toHaveLength(1);
    stream.connection.close();
  });

  it('waits 2 × 15000 ms by default, before any connected announced a heartbeat', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fake.last.closeCalls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.connections()).toEqual(['reconnecting']);
    stream.connection.close();
  });

  it('treats a socket that never opens like a silent one', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
  });

  it('gives a reconnect the handshake window, then the announced heartbeat once connected again', async () => {
    const { fake, stream } = streamingWithHeartbeat(1000);
    fake.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fake.last.closeCalls).toEqual([]);
    fake.last.open();
    fake.last.receive({ type: 'connected', protocol: 1, environmentId: 'production', version: 1 });
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.last.closeCalls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.last.closeCalls).toHaveLength(1);
    stream.connection.close();
  });

  it('never has more than one timer pending', async () => {
    const { fake, stream } = streamingWithHeartbeat(1000);
    expect(vi.getTimerCount()).toBe(1);
    fake.last.receive({ type: 'ping', ts: 1 });
    expect(vi.getTimerCount()).toBe(1);
    fake.last.serverClose(1006);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(vi.getTimerCount()).toBe(1);
    stream.connection.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('heartbeatMs at the edges', () => {
  // 2 × heartbeatMs above 2^31 - 1 ms overflows setTimeout, which then fires after 1 ms.
  it.each([
    ['a very long heartbeat', '1500000000'],
    ['an infinite heartbeat (1e400 parses to Infinity)', '1e400'],
  ])('%s: the connection is not declared silent at once', async (_name, heartbeat) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(`{"type":"connected","protocol":1,"environmentId":"production","version":1,"heartbeatMs":${heartbeat}}`);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stream.errors()).toEqual([]);
    expect(stream.connections()).toEqual(['streaming']);
    expect(fake.sockets).toHaveLength(1);
    stream.connection.close();
  });
});
