// The scenario every runtime suite runs: the built package imported by name, as an app does,
// with the client's default options except what the run's settings ask for. Plain JavaScript
// that needs only `console.log`, so any runtime can run it. It prints one JSON line per step;
// the Node-side driver (../runtime-driver.ts) asserts what they say.
//
// Settings, from the environment (Deno.env, else process.env; a runtime with neither, such as
// Hermes, can define them as the object globalThis.FLAGPLANE_SCENARIO_SETTINGS before this runs):
//   FLAGPLANE_BASE_URL    the reference server's base URL (required)
//   FLAGPLANE_SDK_KEY     the client key (required)
//   FLAGPLANE_STREAM_URL  the stream's origin: connect the stream and wait for a publish
//   FLAGPLANE_PERSIST     '1': persist: true (otherwise the option is left out, its default)
//   FLAGPLANE_SYNC_TABS   '1': syncTabs: true (likewise)
import { createClient } from 'flagplane';
import { webSocketTransport } from 'flagplane/adapters/websocket';

/** The flag the demo targets by plan: `enterprise` matches its rule `enterprise-plan`. */
const TARGETED_FLAG = 'search-page-size';
const MATCHING_CONTEXT = { userId: 'runtime-enterprise', attributes: { plan: 'enterprise' } };
const FALLTHROUGH_CONTEXT = { userId: 'runtime-free', attributes: { plan: 'free' } };

function setting(name) {
  const { Deno, FLAGPLANE_SCENARIO_SETTINGS: injected, process } = globalThis;
  const value = injected ? injected[name] : Deno ? Deno.env.get(name) : process?.env[name];
  return value === '' ? undefined : value;
}

const print = (step, observed = {}) => console.log(JSON.stringify({ step, ...observed }));

/** How many keys the runtime's own localStorage holds, or null where it has none (Bun). */
function storedKeys() {
  try {
    return typeof localStorage == 'undefined' ? null : localStorage.length;
  } catch {
    return null;
  }
}

/**
 * Counts the BroadcastChannels opened and closed from now on (tab sync's), or returns null
 * where the runtime has none. The client looks the global up when it starts, so it gets this.
 */
function countBroadcastChannels() {
  const Native = globalThis.BroadcastChannel;
  if (typeof Native != 'function') return null;
  const counts = { opened: 0, closed: 0 };
  globalThis.BroadcastChannel = class extends Native {
    constructor(name) {
      super(name);
      counts.opened++;
    }
    close() {
      counts.closed++;
      super.close();
    }
  };
  return counts;
}

/** Resolves with the first status `accept` takes; every source the client reported goes to `sources`. */
function statusWhen(client, accept) {
  return new Promise((resolve) => {
    const check = () => {
      if (!accept(client.getStatus())) return false;
      unsubscribe();
      resolve(client.getStatus());
      return true;
    };
    const unsubscribe = client.subscribe(check);
    check();
  });
}

/** Waits for the driver's publish of TARGETED_FLAG and reports the value the stream brought. */
async function hearPublish(client) {
  await statusWhen(client, (status) => status.connection === 'streaming');
  const before = client.getStatus().version;
  print('waiting-for-publish', { version: before });
  await statusWhen(client, (status) => status.version !== before);
  print('published-value', { key: TARGETED_FLAG, value: client.get(TARGETED_FLAG, 0), status: client.getStatus() });
}

async function run() {
  const streamUrl = setting('FLAGPLANE_STREAM_URL');
  const errors = [];
  const sources = new Set();
  const channels = countBroadcastChannels();
  print('started', { storedKeys: storedKeys() });
  const client = createClient({
    sdkKey: setting('FLAGPLANE_SDK_KEY'),
    baseUrl: setting('FLAGPLANE_BASE_URL'),
    context: MATCHING_CONTEXT,
    ...(streamUrl ? { streamUrl, streamTransport: webSocketTransport } : {}),
    ...(setting('FLAGPLANE_PERSIST') === '1' ? { persist: true } : {}),
    ...(setting('FLAGPLANE_SYNC_TABS') === '1' ? { syncTabs: true } : {}),
    onError: (error) => errors.push(`${error.code}: ${error.message}`),
  });
  sources.add(client.getStatus().source);
  client.subscribe(({ status }) => sources.add(status.source));
  const ready = await client.ready();
  // The first network snapshot: with a cache the client is ready before it arrives.
  const status = await statusWhen(client, (current) => current.source === 'network');
  print('ready', { ready, status });
  const matching = client.getDetails(TARGETED_FLAG, 0);
  client.setContext(FALLTHROUGH_CONTEXT);
  const fallthrough = client.getDetails(TARGETED_FLAG, 0);
  print('reads', { matching, fallthrough, missing: client.get('no-such-flag', 'fallback') });
  await client.flush();
  print('flushed');
  if (streamUrl) await hearPublish(client);
  await client.close();
  print('closed', { storedKeys: storedKeys(), sources: [...sources], channels, errors });
}

run().catch((error) => print('failed', { error: String(error?.stack ?? error) }));
