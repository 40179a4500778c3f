// The client's side of `npm run bench:large` (scripts/bench-large.mjs): one SDK client of a
// large environment, from the network, in this process (the server runs in a child of its
// own). Each measure runs next to its baseline in the same rounds (bench-measure.mjs's
// interleave: a warm-up round dropped, the order rotated) and yields rows for the table.
import { fmt, fmtMs, interleave, median, now, settle } from './bench-measure.mjs';

const TARGET = { readyMs: 300, setContextRatio: 1.5, getAllMs: 1 };
/** setContext calls per round and variant: at 10,000 flags each takes tens of milliseconds. */
const SET_CONTEXTS = 3;
const GET_ALLS = 20;
const HEAP_ROUNDS = 3;
/** Two users in different markets, so that different rules match after each switch. */
const USERS = [
  { userId: 'user-1', attributes: { country: 'FR', plan: 'free' } },
  { userId: 'user-2', attributes: { country: 'US', plan: 'pro' } },
];
/** A context object the SDK has never seen. */
const fresh = (i) => {
  const user = USERS[i % USERS.length];
  return { userId: user.userId, attributes: { ...user.attributes } };
};
const ms = (from) => (now() - from) / 1e6;
const verdict = (met) => (met ? 'met' : 'missed');
let sink;

/**
 * `env`: { sdk, clientKey, referenceUrl, bareUrl, acceptEncoding, bodyText }: acceptEncoding what
 * the SDK's transport sends, bodyText the snapshot the client key is served, decoded.
 */
async function readyClient({ sdk, clientKey, referenceUrl }, extra = {}) {
  const client = sdk.createClient({ sdkKey: clientKey, baseUrl: referenceUrl, ...extra });
  const result = await client.ready();
  if (result.status !== 'ready' || result.source !== 'network') {
    await client.close();
    throw new Error(`ready() gave ${JSON.stringify(result)}, not a snapshot from the network`);
  }
  return client;
}

const readAll = (client, keys) => {
  let served = 0;
  for (const key of keys) if (client.get(key, 'control') === 'treatment') served++;
  return served;
};

/** createClient → ready() from the network, against fetch + JSON.parse of the same bytes from the bare server. */
export async function readyFromNetwork(env, rounds) {
  const samples = await interleave(
    {
      client: async () => {
        const start = now();
        const client = await readyClient(env);
        const took = ms(start);
        await client.close();
        return took;
      },
      fetch: async () => {
        const start = now();
        const headers = { authorization: `Bearer ${env.clientKey}`, ...(env.acceptEncoding && { 'accept-encoding': env.acceptEncoding }) };
        const response = await fetch(`${env.bareUrl}/sdk/v1/snapshot`, { headers });
        sink = await response.json();
        return ms(start);
      },
    },
    rounds,
  );
  const value = median(samples.client);
  const base = median(samples.fetch);
  return [
    {
      step: 'Client `createClient` → `ready()` from the network',
      value: `${fmtMs(value)}`,
      baseline: `${fmtMs(base)} (fetch + JSON.parse, bare server)`,
      ratio: value / base,
      target: `≤ ${TARGET.readyMs} ms: ${verdict(value <= TARGET.readyMs)}`,
    },
  ];
}

/**
 * setContext with every flag read (alone, and followed by every flag read again), getAll()
 * right after a setContext, then getAll() twice in a row, on one client; the baselines are evaluateFlag over the same flags for the same
 * contexts, and a spread copy of what getAll() returned.
 */
export async function contextAndGetAll(env, keys, rounds) {
  const { evaluateFlag } = env.sdk;
  const client = await readyClient(env);
  const flags = Object.values(JSON.parse(env.bodyText).flags);
  readAll(client, keys);
  let turn = 0;
  const timedCalls = (call) => () => Array.from({ length: SET_CONTEXTS }, () => {
    const context = fresh(turn++);
    const start = now();
    call(context);
    return ms(start);
  });
  const contexts = await interleave(
    {
      setContext: timedCalls((context) => client.setContext(context)),
      setContextReread: timedCalls((context) => (client.setContext(context), (sink = readAll(client, keys)))),
      evaluateFlag: timedCalls((context) => {
        for (const flag of flags) sink = evaluateFlag(flag, context, context.userId);
      }),
      // What getAll() costs when something did change: the first call after a switch of user.
      getAllAfterSwitch: () => Array.from({ length: SET_CONTEXTS }, () => {
        client.setContext(fresh(turn++));
        const start = now();
        sink = client.getAll();
        return ms(start);
      }),
    },
    rounds,
  );
  sink = client.getAll();
  const timedGetAll = (read) => () => Array.from({ length: GET_ALLS }, () => {
    const start = now();
    sink = read();
    return ms(start);
  });
  const values = client.getAll();
  const getAlls = await interleave({ getAll: timedGetAll(() => client.getAll()), copy: timedGetAll(() => ({ ...values })) }, rounds);
  await client.close();
  const m = (xs) => median(xs);
  const evaluate = m(contexts.evaluateFlag);
  const setContext = m(contexts.setContext);
  const reread = m(contexts.setContextReread);
  const getAll = m(getAlls.getAll);
  const baseline = `${fmtMs(evaluate)} (evaluateFlag × ${flags.length.toLocaleString('en')})`;
  return [
    {
      step: '`setContext` with every flag read',
      value: `${fmtMs(setContext)}`,
      baseline,
      ratio: setContext / evaluate,
      target: `≤ ${TARGET.setContextRatio}× evaluateFlag: ${verdict(setContext <= TARGET.setContextRatio * evaluate)}`,
    },
    {
      step: '  `setContext`, then every flag read again',
      value: `${fmtMs(reread)}`,
      baseline,
      ratio: reread / evaluate,
      target: `≤ ${TARGET.setContextRatio}× evaluateFlag: ${verdict(reread <= TARGET.setContextRatio * evaluate)}`,
    },
    {
      step: '`getAll()` when nothing changed since the last call',
      value: `${fmtMs(getAll)}`,
      baseline: `${fmtMs(m(getAlls.copy))} ({ ...values } copy)`,
      ratio: getAll / m(getAlls.copy),
      target: `≤ ${TARGET.getAllMs} ms: ${verdict(getAll <= TARGET.getAllMs)}`,
    },
    {
      step: '  `getAll()` right after a `setContext` that changed values',
      value: `${fmtMs(m(contexts.getAllAfterSwitch))}`,
      baseline: `${fmtMs(m(getAlls.copy))} ({ ...values } copy)`,
      ratio: m(contexts.getAllAfterSwitch) / m(getAlls.copy),
      target: 'reported',
    },
  ];
}

/** The heap one client holds with every flag read, against the snapshot's JSON.parse alone. */
async function heapOnce(env, keys, extra) {
  sink = undefined;
  const before = await settle();
  let client = await readyClient(env, extra);
  readAll(client, keys);
  const held = await settle();
  await client.close();
  client = null;
  const cleared = await settle();
  sink = JSON.parse(env.bodyText);
  const parsed = await settle();
  sink = undefined;
  return { client: held - before, json: parsed - cleared };
}

export async function clientHeap(env, keys) {
  const rows = [];
  for (const [label, extra] of [['', {}], [' (events: false)', { events: false }]]) {
    const rounds = [];
    for (let i = 0; i < HEAP_ROUNDS; i++) rounds.push(await heapOnce(env, keys, extra));
    const client = median(rounds.map((r) => r.client));
    const json = median(rounds.map((r) => r.json));
    const perFlag = (bytes) => `${fmt(bytes / keys.length / 1024)} KB per flag`;
    rows.push({
      step: label ? `  Client heap with all flags read${label}` : 'Client heap with all flags read',
      value: `+${fmt(client / 2 ** 20)} MiB, ${perFlag(client)}`,
      baseline: `+${fmt(json / 2 ** 20)} MiB, ${perFlag(json)} (JSON.parse of the snapshot)`,
      ratio: client / json,
      target: 'reported',
    });
  }
  return rows;
}
