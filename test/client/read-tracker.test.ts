import { describe, expect, it } from 'vitest';
import type { DiagnosticEvent } from '../../src/diagnostic-events';
import type { EvaluationDetails } from '../../src/evaluation-types';
import { ReadTracker } from '../../src/read-tracker';

const served = (key: string, value: unknown, reason: EvaluationDetails['reason'] = 'TARGETING_MATCH'): EvaluationDetails => ({
  key,
  value: value as EvaluationDetails['value'],
  reason,
  variation: 1,
  version: 3,
});

function tracker() {
  const events: DiagnosticEvent[] = [];
  return { events, tracker: new ReadTracker((event) => events.push(event)) };
}

describe('ReadTracker', () => {
  it('reports a (key, value, user) once per flush window, not on every read', () => {
    const { events, tracker: t } = tracker();
    const details = served('a', true);
    for (let i = 0; i < 5; i++) t.track(details, 'u1');
    t.track(served('a', true), 'u1');
    expect(events).toEqual([{ type: 'evaluation', key: 'a', reason: 'TARGETING_MATCH', value: true, userId: 'u1' }]);
    t.track(served('a', false), 'u1');
    t.track(details, 'u2');
    expect(events).toHaveLength(3);
    t.newWindow();
    t.track(details, 'u2');
    expect(events).toHaveLength(4);
  });

  it('reports an unknown key once as unregistered_flag, and nothing for overrides or before a snapshot', () => {
    const { events, tracker: t } = tracker();
    const unknown = (): EvaluationDetails => ({ key: 'ghost', value: 1, reason: 'ERROR', variation: null, version: 3, errorCode: 'FLAG_NOT_FOUND' });
    t.track(unknown(), 'u1');
    t.track(unknown(), 'u1');
    t.newWindow();
    t.track(unknown(), 'u1');
    t.track({ key: 'o', value: 1, reason: 'OVERRIDE', variation: null, version: null }, 'u1');
    t.track({ key: 'p', value: 1, reason: 'ERROR', variation: null, version: null, errorCode: 'PROVIDER_NOT_READY' }, 'u1');
    expect(events).toEqual([{ type: 'unregistered_flag', key: 'ghost' }]);
  });

  it('keeps its memory of combinations bounded', () => {
    const { events, tracker: t } = tracker();
    for (let i = 0; i < 10_001; i++) t.track(served('a', i), 'u1');
    t.track(served('a', 0), 'u1');
    expect(events).toHaveLength(10_002);
  });

  it('omits userId when there is none, and reports defaults served on errors', () => {
    const { events, tracker: t } = tracker();
    t.track({ key: 'm', value: 0, reason: 'ERROR', variation: null, version: 3, errorCode: 'TYPE_MISMATCH' }, undefined);
    expect(events).toEqual([{ type: 'evaluation', key: 'm', reason: 'ERROR', value: 0 }]);
  });
});
