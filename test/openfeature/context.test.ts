import { describe, expect, it } from 'vitest';
import { toFlagplaneContext } from '../../openfeature/index';

describe('toFlagplaneContext (docs/openfeature.md, How the two vocabularies map)', () => {
  it('targetingKey is the userId, segmentIds of strings the segments, the rest attributes as JSON', () => {
    const signup = new Date('2026-01-02T03:04:05.000Z');
    expect(
      toFlagplaneContext({ targetingKey: 'u-1', segmentIds: ['beta'], plan: 'pro', signup, nested: { at: signup, gone: undefined }, gone: undefined } as never),
    ).toEqual({
      userId: 'u-1',
      segmentIds: ['beta'],
      attributes: { plan: 'pro', signup: '2026-01-02T03:04:05.000Z', nested: { at: '2026-01-02T03:04:05.000Z' } },
    });
  });

  it('keeps a segmentIds that is not a list of strings as an attribute; no targetingKey is no user', () => {
    expect(toFlagplaneContext({ targetingKey: '', segmentIds: [1, 2] })).toEqual({ userId: undefined, segmentIds: [], attributes: { segmentIds: [1, 2] } });
    expect(toFlagplaneContext()).toEqual({ userId: undefined, segmentIds: [], attributes: {} });
  });

  it('never throws, not even for a context JSON cannot hold', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(toFlagplaneContext({ targetingKey: 'u', cycle } as never)).toEqual({ userId: 'u', segmentIds: [], attributes: {} });
  });
});
