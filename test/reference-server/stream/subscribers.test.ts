import { describe, expect, it } from 'vitest';
import { createSubscriberIndex } from '../../../reference-server/stream/subscribers';

describe('createSubscriberIndex', () => {
  it('keeps each environment apart, in the order of subscription, and forgets one that leaves', () => {
    const index = createSubscriberIndex<string>();
    index.add('production', 'a');
    index.add('staging', 's');
    index.add('production', 'b');
    index.add('production', 'a');
    expect(index.of('production')).toEqual(['a', 'b']);
    expect(index.of('staging')).toEqual(['s']);
    expect(index.count('production')).toBe(2);
    index.remove('production', 'a');
    index.remove('production', 'never-added');
    index.remove('nowhere', 'b');
    expect(index.of('production')).toEqual(['b']);
    index.remove('staging', 's');
    expect(index.of('staging')).toEqual([]);
    expect(index.count('staging')).toBe(0);
  });

  it('answers a copy: a fan-out that holds it does not see later subscriptions', () => {
    const index = createSubscriberIndex<string>();
    index.add('production', 'a');
    const held = index.of('production');
    index.add('production', 'b');
    index.remove('production', 'a');
    expect(held).toEqual(['a']);
    expect(index.of('production')).toEqual(['b']);
  });
});
