import { describe, expect, it } from 'vitest';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import type { FlagplaneError } from '../../src/shared/errors';
import type { EvaluationDetails } from '../../src/evaluation/evaluation-types';
import { createEventSender } from '../../src/events/event-sender';

const served = (key: string, value: unknown, reason: EvaluationDetails['reason'] = 'TARGETING_MATCH'): EvaluationDetails => ({
  key,
  value: value as EvaluationDetails['value'],
  reason,
  variation: 1,
  version: 3,
});

/**
 * The read tracking of the event sender. `events` holds what was sent; `newWindow()` flushes
 * (a flush starts a new window) and `sent()` flushes to read what was tracked since.
 */
function tracker() {
  const events: DiagnosticEvent[] = [];
  const errors: FlagplaneError[] = [];
  const sender = createEventSender({
    sdkKey: 'key',
    flushAt: 100_000,
    flushInterval: 0,
    http: {
      send: async (_route, request) => {
        events.push(...(JSON.parse(request!.body!) as { events: DiagnosticEvent[] }).events);
        return { kind: 'response', status: 202, body: '', header: () => null };
      },
      abort: () => undefined,
    },
    scheduler: { setTimeout: () => 1, clearTimeout: () => undefined, now: () => 0, random: () => 0 },
    report: (error) => errors.push(error),
    offline: () => false,
  });
  const sent = async () => {
    await sender.flush();
    return events;
  };
  return { sent, errors, tracker: { track: sender.track, newWindow: sender.flush } };
}

describe('read tracking (createEventSender().track)', () => {
  it('reports a (key, value, user) once per flush window, not on every read', async () => {
    const { sent, tracker: t } = tracker();
    const details = served('a', true);
    for (let i = 0; i < 5; i++) t.track(details, 'u1');
    t.track(served('a', true), 'u1');
    expect(await sent()).toEqual([{ type: 'evaluation', key: 'a', reason: 'TARGETING_MATCH', value: true, userId: 'u1' }]);
    t.track(served('a', false), 'u1');
    t.track(details, 'u2');
    t.track(details, 'u2');
    expect(await sent()).toHaveLength(3);
    await t.newWindow();
    t.track(details, 'u2');
    expect(await sent()).toHaveLength(4);
  });

  it('leaves out a userId the events route would refuse (empty, over 256 characters)', async () => {
    const { sent, tracker: t } = tracker();
    t.track(served('a', 1), '');
    t.track(served('b', 1), 'u'.repeat(257));
    const events = await sent();
    expect(events).toEqual([
      { type: 'evaluation', key: 'a', reason: 'TARGETING_MATCH', value: 1 },
      { type: 'evaluation', key: 'b', reason: 'TARGETING_MATCH', value: 1 },
    ]);
    expect(events[0]).not.toHaveProperty('userId');
  });

  it('reports an unknown key once as unregistered_flag, and nothing for overrides or before a snapshot', async () => {
    const { sent, tracker: t } = tracker();
    const unknown = (): EvaluationDetails => ({ key: 'ghost', value: 1, reason: 'ERROR', variation: null, version: 3, errorCode: 'FLAG_NOT_FOUND' });
    t.track(unknown(), 'u1');
    t.track(unknown(), 'u1');
    await t.newWindow();
    t.track(unknown(), 'u1');
    t.track({ key: 'o', value: 1, reason: 'OVERRIDE', variation: null, version: null }, 'u1');
    t.track({ key: 'p', value: 1, reason: 'ERROR', variation: null, version: null, errorCode: 'PROVIDER_NOT_READY' }, 'u1');
    expect(await sent()).toEqual([{ type: 'unregistered_flag', key: 'ghost' }]);
  });

  it('keeps its memory of combinations bounded', async () => {
    const { sent, errors, tracker: t } = tracker();
    // One window (no flush in between): the buffer keeps the newest 1000 and counts the rest.
    for (let i = 0; i < 10_001; i++) t.track(served('a', i), 'u1');
    t.track(served('a', 0), 'u1');
    const events = await sent();
    expect(events).toHaveLength(1000);
    expect(events.at(-1)).toMatchObject({ key: 'a', value: 0 });
    // 10,002 events in all: the last read of 0 was reported again.
    expect(errors.map((error) => error.message)).toEqual(['dropped the 9002 oldest events: the buffer holds at most 1000']);
  });

  it('reports defaults served on errors', async () => {
    const { sent, tracker: t } = tracker();
    t.track({ key: 'm', value: 0, reason: 'ERROR', variation: null, version: 3, errorCode: 'TYPE_MISMATCH' }, 'u1');
    expect(await sent()).toEqual([{ type: 'evaluation', key: 'm', reason: 'ERROR', value: 0, userId: 'u1' }]);
  });

  it('throws for a value JSON cannot hold, buffering nothing, and goes on', async () => {
    const { sent, tracker: t } = tracker();
    expect(() => t.track(served('big', 1n), 'u1')).toThrow(TypeError);
    t.track(served('a', 1), 'u1');
    expect(await sent()).toEqual([{ type: 'evaluation', key: 'a', reason: 'TARGETING_MATCH', value: 1, userId: 'u1' }]);
  });
});
