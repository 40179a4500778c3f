import type { FlagsClient } from '../../src/index';

/** Wraps `client.subscribe` to count its live listeners from now on; returns how many there are. */
export function countListeners(client: FlagsClient): () => number {
  let count = 0;
  const subscribe = client.subscribe;
  client.subscribe = (listener) => {
    count++;
    const off = subscribe(listener);
    let done = false;
    return () => {
      if (!done) count--;
      done = true;
      off();
    };
  };
  return () => count;
}
