import { describe, expect, it } from 'vitest';
import { nextDelay } from '../../src/shared/backoff';

describe('nextDelay', () => {
  it('doubles from base to max without jitter', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => nextDelay(attempt, { base: 1000, max: 60_000, jitter: 0, random: 0.9 }));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('adds jitter proportional to the delay and the injected random number', () => {
    expect(nextDelay(3, { base: 1000, max: 60_000, jitter: 0.2, random: 0 })).toBe(4000);
    expect(nextDelay(3, { base: 1000, max: 60_000, jitter: 0.2, random: 0.5 })).toBe(4400);
    expect(nextDelay(30, { base: 1000, max: 60_000, jitter: 0.2, random: 0.999 })).toBe(71_988);
  });

  it('treats attempt 0 or less like the first attempt', () => {
    expect(nextDelay(0, { base: 500, max: 10_000, jitter: 0, random: 0 })).toBe(500);
  });
});
