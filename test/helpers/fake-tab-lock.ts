import type { TabLock } from '../../src/platform/tab-lock';

interface LockRequest {
  name: string;
  task: (lock: unknown) => Promise<unknown>;
  settle(outcome: 'done' | 'refused'): void;
}

/**
 * An in-memory Web Locks manager shared by the "tabs" of a test: per name, requests are
 * granted one at a time in the order they were made, a microtask after the lock is free (a
 * browser grants in a task of its own), and the lock is held until the task's promise settles.
 * `die()` frees a held lock without waiting, as a browser does for a closed tab.
 */
export function createFakeTabLock() {
  const queues = new Map<string, LockRequest[]>();
  const holders = new Map<string, LockRequest>();
  /** Every name requested, in order. */
  const requested: string[] = [];
  let refusing = false;

  const grantNext = (name: string) => {
    if (holders.has(name)) return;
    const next = queues.get(name)?.shift();
    if (!next) return;
    holders.set(name, next);
    queueMicrotask(() => {
      const release = () => {
        if (holders.get(name) !== next) return;
        holders.delete(name);
        next.settle('done');
        grantNext(name);
      };
      next.task({ name }).then(release, release);
    });
  };

  const lock: TabLock = {
    request(name, { ifAvailable }, task) {
      requested.push(name);
      if (refusing) return Promise.reject(new DOMException('opaque origin', 'SecurityError'));
      // Taken or waited for: the task runs at once with null, holding nothing.
      if (ifAvailable && (holders.has(name) || (queues.get(name)?.length ?? 0) > 0)) return Promise.resolve().then(() => task(null));
      return new Promise((resolve, reject) => {
        const request: LockRequest = { name, task, settle: (outcome) => (outcome === 'done' ? resolve(undefined) : reject(new Error('refused'))) };
        queues.set(name, [...(queues.get(name) ?? []), request]);
        grantNext(name);
      });
    },
  };
  return {
    lock,
    requested,
    /** Whether some tab holds the lock `name`. */
    held: (name: string) => holders.has(name),
    /** Requests waiting for `name`. */
    waiting: (name: string) => queues.get(name)?.length ?? 0,
    /** The holder of `name` is gone (its tab closed): the lock passes on, its task's end is ignored. */
    die(name: string): void {
      holders.delete(name);
      grantNext(name);
    },
    /** From now on every request is refused, as in an opaque origin. */
    refuse(): void {
      refusing = true;
    },
  };
}
