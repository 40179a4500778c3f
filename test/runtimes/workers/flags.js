import { createClient } from 'flagplane';

/** The isolate's client, made by its first request: Workers allow no I/O at global scope. */
let client;
/** When this isolate last heard from the flag server (Date.now()), and the check on its way. */
let checkedAt = 0;
let checking;

/**
 * Asks the server whether the flags changed (an ETag: a 304 when they did not), once at a
 * time for the whole isolate. Whatever the outcome, the flags count as checked: a server
 * that does not answer is reported through onError and not asked again until the next check.
 */
function check(next) {
  checking ??= next().then(() => {
    checkedAt = Date.now();
    checking = undefined;
  });
  return checking;
}

/**
 * The isolate's client with flags at most `FLAGS_MAX_AGE_MS` old (30 s): older, the request
 * waits for a check. Older than `FLAGS_REVALIDATE_MS` (1 s), it is answered with the flags
 * held and the check runs after the response, for the next requests. No poll and no stream:
 * a Worker runs no timer between requests, and a socket is I/O of the request that opened it.
 */
export async function freshFlags(env, ctx) {
  if (!client) {
    client = createClient({
      sdkKey: env.FLAGPLANE_SERVER_KEY,
      baseUrl: env.FLAGPLANE_URL,
      pollInterval: 0,
      onError: (error) => console.error(`flagplane: ${error.message}`),
    });
    check(() => client.ready());
  }
  const age = Date.now() - checkedAt;
  if (age > Number(env.FLAGS_MAX_AGE_MS ?? 30_000)) await check(() => client.refresh());
  else if (age > Number(env.FLAGS_REVALIDATE_MS ?? 1_000)) ctx.waitUntil(check(() => client.refresh()));
  return client;
}
