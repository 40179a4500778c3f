import { describe, expect, it, vi } from 'vitest';
import { toEpochMs } from '../../src/evaluation/dates';

describe('toEpochMs', () => {
  it.each([
    ['2024-01-01', Date.UTC(2024, 0, 1)],
    ['2024-02-29', Date.UTC(2024, 1, 29)], // leap day
    ['2024-01-01T00:00Z', Date.UTC(2024, 0, 1)],
    ['2024-01-01T12:34:56Z', Date.UTC(2024, 0, 1, 12, 34, 56)],
    ['2024-01-01T12:34:56.7Z', Date.UTC(2024, 0, 1, 12, 34, 56, 700)],
    ['2024-01-01T12:34:56.78Z', Date.UTC(2024, 0, 1, 12, 34, 56, 780)],
    ['2024-01-01T12:34:56.789123Z', Date.UTC(2024, 0, 1, 12, 34, 56, 789)], // truncated, not rounded
    ['2024-01-01T12:00:00+05:30', Date.UTC(2024, 0, 1, 6, 30)],
    ['2024-01-01T12:00:00-08:00', Date.UTC(2024, 0, 1, 20)],
    ['2024-01-01T00:30:00+01:00', Date.UTC(2023, 11, 31, 23, 30)],
    ['0001-01-01', new Date(0).setUTCFullYear(1, 0, 1)], // Date.UTC would read year 1 as 1901
    ['9999-12-31T23:59:59.999Z', Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
  ])('%s', (input, want) => {
    expect(toEpochMs(input)).toBe(want);
  });

  it.each([0, -1, 1717200000000, 1.5, -8.64e15])('a finite number %d is epoch milliseconds', (n) => {
    expect(toEpochMs(n)).toBe(n);
  });

  it.each([
    NaN,
    Infinity,
    -Infinity,
    '1717200000000',
    '',
    'yesterday',
    'Mon, 01 Jan 2024 00:00:00 GMT', // Date.parse reads it; the profile does not
    '2024/01/01',
    '2024-1-1',
    '24-01-01',
    '+002024-01-01',
    '2024-01-01T00:00:00', // no offset: device-local in ECMAScript
    '2024-01-01T00:00', // no offset
    '2024-01-01 00:00:00Z',
    '2024-01-01t00:00:00z',
    '2024-01-01T00Z',
    '2024-01-01T00:00:00.Z',
    '2024-00-01',
    '2024-13-01',
    '2024-01-00',
    '2024-01-32',
    '2023-02-29', // not a leap year
    '2024-02-30',
    '2024-04-31',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z', // leap seconds are not representable
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:00:00+05:60',
    '2024-01-01T00:00:00+0530',
    ' 2024-01-01',
    null,
    undefined,
    true,
    {},
    [2024, 1, 1],
  ])('%j is not a date (NaN)', (input) => {
    expect(toEpochMs(input)).toBeNaN();
  });

  it('gives the same instant for the same moment written with different offsets', () => {
    expect(toEpochMs('2024-06-01T00:00:00Z')).toBe(toEpochMs('2024-06-01T02:00:00+02:00'));
    expect(toEpochMs('2024-06-01T00:00:00Z')).toBe(toEpochMs('2024-05-31T19:00:00-05:00'));
  });

  it('never calls Date.parse, whose leniency differs between engines', () => {
    const spy = vi.spyOn(Date, 'parse');
    try {
      for (const input of ['2024-01-01', '2024-01-01T00:00Z', '2024-01-01T00:00:00.5+01:00', '2024-02-30', 'nope']) {
        toEpochMs(input);
      }
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('dates: the Gregorian calendar and the edges of the profile', () => {
  it.each([
    ['2000-02-29', Date.UTC(2000, 1, 29)], // divisible by 400: leap
    ['0400-02-29', new Date(0).setUTCFullYear(400, 1, 29)],
    ['0000-02-29', new Date(0).setUTCFullYear(0, 1, 29)], // proleptic year 0 is a leap year
    ['2024-01-01T00:00:00-00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00.1234567890Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123)],
    ['9999-12-31T23:59:59-23:59', Date.UTC(10000, 0, 1, 23, 58, 59)], // the offset may leave year 9999
    ['0000-01-01T00:00:00+23:59', new Date(0).setUTCFullYear(-1, 11, 31) + 60_000],
  ])('%s', (input, want) => {
    expect(toEpochMs(input)).toBe(want);
  });

  it.each(['1900-02-29', '2100-02-29', '0100-02-29', '2024-06-31', '2024-01-01Z', '2024-01-01T00:00:00.000Z\n', '2024-01-01T00:00:00,5Z', '２０２４-01-01'])(
    '%j is not a date',
    (input) => {
      expect(toEpochMs(input)).toBeNaN();
    },
  );
});
