import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlagplaneError } from '../../src/shared/errors';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { snapshot, status, scriptedSender } from './fixtures';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('error events', () => {
  it('replace every occurrence of the SDK key, then cut the message at 2,048 characters', async () => {
    const { sender, sent } = scriptedSender(() => status(202), CLIENT_KEY);
    sender.error(new FlagplaneError('http', `${CLIENT_KEY} / ${CLIENT_KEY}${CLIENT_KEY} and ${CLIENT_KEY}`));
    // The key straddles the 2,048th character: no prefix of it may survive the cut.
    sender.error(new FlagplaneError('http', `${'a'.repeat(2040)}${CLIENT_KEY}${CLIENT_KEY}`));
    await sender.flush();
    expect(sent[0]).toEqual({ type: 'error', message: '[sdk key] / [sdk key][sdk key] and [sdk key]' });
    const long = (sent[1] as { message: string }).message;
    expect(long).toHaveLength(2048);
    expect(long).toBe(`${'a'.repeat(2040)}[sdk key`);
    expect(JSON.stringify(sent)).not.toContain(CLIENT_KEY.slice(0, 12));
  });

  it('an onError handler that throws loses no event and stops nothing', async () => {
    const plane = fakeDataPlane(snapshot);
    const { client } = harness(plane.handler, {
      events: true,
      flushInterval: 0,
      onError: () => {
        throw new Error('handler broke');
      },
    });
    await client.ready();
    await client.identify('');
    client.get('flag-0');
    await client.flush();
    expect(plane.events.map((event) => event.type)).toEqual(['error', 'evaluation']);
    await client.close();
  });
});
