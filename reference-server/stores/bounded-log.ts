/** One entry of a {@link BoundedLog} and its place in arrival order (the pagination cursor). */
export interface Sequenced<T> {
  readonly seq: number;
  readonly entry: T;
}

/** A fixed-capacity queue: pushing onto a full one drops its oldest entry in O(1). */
class Ring<T> {
  private readonly slots: T[] = [];
  private start = 0;
  constructor(private readonly capacity: number) {}
  get length(): number {
    return this.slots.length;
  }
  /** Adds `value`; whether the oldest entry was dropped for it. */
  push(value: T): boolean {
    if (this.slots.length < this.capacity) {
      this.slots.push(value);
      return false;
    }
    this.slots[this.start] = value;
    this.start = (this.start + 1) % this.capacity;
    return true;
  }
  /** The `i`th oldest entry. */
  at(i: number): T {
    return this.slots[(this.start + i) % this.slots.length]!;
  }
  toArray(): T[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)];
  }
  /** Keeps only the entries `keep` accepts, in order; returns how many it removed. */
  retain(keep: (value: T) => boolean): number {
    const kept = this.toArray().filter(keep);
    const removed = this.slots.length - kept.length;
    this.slots.splice(0, this.slots.length, ...kept);
    this.start = 0;
    return removed;
  }
}

/** A page of a log: oldest first, and whether older entries remain before it. */
export interface LogPage<T> {
  entries: Array<Sequenced<T>>;
  more: boolean;
}

/**
 * Entries in arrival order, split into buckets (an environment, an event type) of at most
 * `capacity` entries each: a full bucket drops its oldest entry, and `onEvict` counts it.
 * Memory is bounded by the number of buckets times the capacity, whatever is appended.
 * With `expired`, a bucket drops (and counts) its expired entries whenever it is written or
 * read, so none is ever served; the check reads only its oldest entry while none expired.
 */
export function createBoundedLog<T>(capacity: number, onEvict: () => void, expired?: (entry: T) => boolean) {
  let seq = 0;
  const buckets = new Map<string, Ring<Sequenced<T>>>();
  const dropExpired = (ring: Ring<Sequenced<T>>) => {
    if (!expired || ring.length === 0 || !expired(ring.at(0).entry)) return;
    const removed = ring.retain(({ entry }) => !expired(entry));
    for (let i = 0; i < removed; i += 1) onEvict();
  };
  const bucketsOf = (only?: (bucket: string) => boolean) =>
    [...buckets].filter(([name]) => !only || only(name)).map(([, ring]) => {
      dropExpired(ring);
      return ring;
    });

  return {
    /** Appends `entry` to `bucket`; returns its sequence number. */
    append(bucket: string, entry: T): number {
      let ring = buckets.get(bucket);
      if (!ring) buckets.set(bucket, (ring = new Ring(capacity)));
      dropExpired(ring);
      seq += 1;
      if (ring.push({ seq, entry })) onEvict();
      return seq;
    },
    /** Removes the entries `remove` picks, whatever their bucket; returns how many. */
    removeWhere(remove: (entry: T) => boolean): number {
      let removed = 0;
      for (const ring of buckets.values()) removed += ring.retain(({ entry }) => !remove(entry));
      return removed;
    },
    /** Every entry kept (of the buckets `only` accepts), oldest first. */
    all(only?: (bucket: string) => boolean): T[] {
      return bucketsOf(only)
        .flatMap((ring) => ring.toArray())
        .sort((a, b) => a.seq - b.seq)
        .map(({ entry }) => entry);
    },
    /**
     * The newest `limit` entries older than `before` (a sequence number; all without it), of
     * the buckets `only` accepts. Reads at most `limit` entries of each bucket, whatever they hold.
     */
    page(limit: number, before = Infinity, only?: (bucket: string) => boolean): LogPage<T> {
      const candidates: Array<Sequenced<T>> = [];
      let more = false;
      for (const ring of bucketsOf(only)) {
        // Each bucket is in arrival order: the newest entry older than `before`, by bisection.
        let low = 0;
        let high = ring.length;
        while (low < high) {
          const middle = (low + high) >> 1;
          if (ring.at(middle).seq < before) low = middle + 1;
          else high = middle;
        }
        let i = low - 1;
        for (let taken = 0; i >= 0 && taken < limit; i -= 1, taken += 1) candidates.push(ring.at(i));
        if (i >= 0) more = true;
      }
      candidates.sort((a, b) => b.seq - a.seq);
      if (candidates.length > limit) more = true;
      return { entries: candidates.slice(0, limit).reverse(), more };
    },
  };
}

export type BoundedLog<T> = ReturnType<typeof createBoundedLog<T>>;

/** How long a log keeps its entries after they were received, and the clock it reads. */
export interface MaxAge {
  readonly ms: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** The `expired` test of a log whose entries carry their `receivedAt` time. */
export function receivedBefore(maxAge: MaxAge | undefined): ((entry: { readonly receivedAt: string }) => boolean) | undefined {
  if (!maxAge) return undefined;
  const now = maxAge.now ?? Date.now;
  return (entry) => Date.parse(entry.receivedAt) < now() - maxAge.ms;
}
