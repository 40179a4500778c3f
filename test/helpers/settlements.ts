/** Records every settlement of a promise (a ready() settles once: `seen` then holds one entry). */
export function trackSettlements<T>(promise: Promise<T>): Array<T | { rejected: unknown }> {
  const seen: Array<T | { rejected: unknown }> = [];
  promise.then(
    (result) => seen.push(result),
    (rejected: unknown) => seen.push({ rejected }),
  );
  return seen;
}
