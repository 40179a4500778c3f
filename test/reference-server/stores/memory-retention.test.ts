// Retention by age on the memory logs: what Postgres prunes by age, memory drops the same way.
import { describe, expect, it } from 'vitest';
import { createEventLog } from '../../../reference-server/stores/event-log';
import { createIdentifyLog } from '../../../reference-server/stores/identify-log';
import { createMemoryIdentifyQueueStore } from '../../../reference-server/stores/memory-event-stores';
import type { StoredEvent } from '../../../reference-server/stores/records';

const HOUR = 3_600_000;
const START = Date.UTC(2030, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** A clock the test moves. */
function clock() {
  let now = START;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

const event = (key: string, receivedAt: number, type = 'evaluation', environmentId = 'production'): StoredEvent => ({ type, environmentId, receivedAt: iso(receivedAt), key });

describe('memory logs: retention by age', () => {
  it('drops and counts events received longer ago than the age, in every bucket a read touches', () => {
    const time = clock();
    let evicted = 0;
    const log = createEventLog(100, () => (evicted += 1), { ms: 2 * HOUR, now: time.now });
    log.append(event('old-a', START));
    log.append(event('old-b', START, 'error'));
    time.advance(HOUR);
    log.append(event('young', time.now()));
    log.append(event('staging-old', START - 2 * HOUR, 'evaluation', 'staging'));
    expect(log.events.map((e) => e.key)).toEqual(['old-a', 'old-b', 'young']);
    expect(evicted).toBe(1);
    time.advance(HOUR + 1);
    expect(log.page(10).entries.map((e) => e.entry.key)).toEqual(['young']);
    expect(evicted).toBe(3);
    time.advance(HOUR);
    expect(log.events).toEqual([]);
    expect(evicted).toBe(4);
  });

  it('drops the expired entries of a bucket when it is written, before the count limit evicts a young one', () => {
    const time = clock();
    let evicted = 0;
    const log = createEventLog(3, () => (evicted += 1), { ms: HOUR, now: time.now });
    log.append(event('old-1', START));
    log.append(event('old-2', START));
    log.append(event('kept', START + HOUR));
    time.advance(HOUR + 1);
    log.append(event('new', time.now()));
    // Counted by the write itself, no read in between.
    expect(evicted).toBe(2);
    expect(log.events.map((e) => e.key)).toEqual(['kept', 'new']);
  });

  it('keeps everything without an age, whatever the clock says', () => {
    let evicted = 0;
    const log = createEventLog(100, () => (evicted += 1));
    log.append(event('ancient', Date.UTC(2000, 0, 1)));
    expect(log.events).toHaveLength(1);
    expect(evicted).toBe(0);
  });

  it('drops identify rows past the age, unconsumed and claimed alike, so a consumer that comes back late finds none', async () => {
    const time = clock();
    let evicted = 0;
    const log = createIdentifyLog(100, () => (evicted += 1), { ms: HOUR, now: time.now });
    const queue = createMemoryIdentifyQueueStore(log, time.now);
    await queue.append([
      { environmentId: 'production', userId: 'claimed', traits: {}, receivedAt: iso(START) },
      { environmentId: 'production', userId: 'waiting', traits: {}, receivedAt: iso(START) },
      { environmentId: 'production', userId: 'young', traits: {}, receivedAt: iso(START + HOUR) },
    ]);
    expect((await queue.claim('production', 1, 10 * HOUR)).map((row) => row.userId)).toEqual(['claimed']);
    time.advance(HOUR + 1);
    expect((await queue.claim('production', 10, HOUR)).map((row) => row.userId)).toEqual(['young']);
    expect(evicted).toBe(2);
    expect((await queue.list('production')).map((row) => row.userId)).toEqual(['young']);
  });
});
