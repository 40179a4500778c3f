import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { snapshotServer } from '../helpers/fake-transport';
import { harness, BASE_URL, CLIENT_KEY, servedHarness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { trackSettlements } from '../helpers/settlements';
import { createClient } from '../../src/client';
import { ConfigError, NetworkError } from '../../src/shared/errors';
import type { VisibilitySource } from '../../src/platform/index';
import { defineStreamTransport } from '../../src/stream/stream-transport';

/** Options that start nothing beyond the snapshot fetch: no events, no tabs, no cache. */
const quiet = { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, events: false, syncTabs: false, persist: false, anonymousId: 'edge-test-id' };

describe('huge but finite intervals', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pollInterval above the 2^31-1 ms timer limit does not poll every millisecond', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 2 ** 31 });
    await vi.advanceTimersByTimeAsync(100);
    const made = requests.length;
    await client.close();
    // Accepted by resolveOptions as a finite number, then overflows the timer: ~100 requests.
    expect(made).toBe(1);
  });

  it('readyTimeout above the 2^31-1 ms timer limit does not time ready() out at once', async () => {
    const { client } = harness(() => 'hang', { readyTimeout: Number.MAX_SAFE_INTEGER, requestTimeout: 0 });
    const seen = trackSettlements(client.ready());
    await vi.advanceTimersByTimeAsync(1000);
    const before = [...seen];
    await client.close();
    // Before the fix: { status: 'timeout' } after 1 ms.
    expect(before).toEqual([]);
  });
});

describe('option validation: createClient throws a ConfigError, and only that', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  const numeric = ['pollInterval', 'readyTimeout', 'requestTimeout', 'flushAt', 'flushInterval'] as const;
  const badNumbers: Array<[string, unknown]> = [
    ['a numeric string', '1000'],
    ['an empty string', ''],
    ['a boolean', true],
    ['null', null],
    ['a bigint', 10n],
    ['an object', { valueOf: () => 1000 }],
    ['a Number object', Object(1000)],
    ['an array', [1000]],
    ['a negative number', -1],
    ['-Infinity', -Infinity],
    ['Infinity', Infinity],
    ['NaN', Number.NaN],
  ];
  for (const name of numeric) {
    it.each(badNumbers)(`${name} given %s is a ConfigError naming ${name}`, (_label, value) => {
      const create = () => createClient({ ...quiet, [name]: value } as never);
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(new RegExp(`^${name} must be a finite number >= 0`));
    });
  }

  it('zero, fractions, -0 and huge finite numbers are accepted for every numeric option', async () => {
    for (const value of [0, 0.5, -0, Number.MAX_VALUE]) {
      const options = Object.fromEntries(numeric.map((name) => [name, value]));
      const client = createClient({ ...quiet, ...options, transport: () => new Promise(() => undefined) });
      await client.close();
    }
  });

  it.each([
    ['8 characters', `svc_sdk_client_${'a'.repeat(8)}`, true],
    ['128 characters', `svc_sdk_server_${'Z'.repeat(128)}`, true],
    ['7 characters', `svc_sdk_client_${'a'.repeat(7)}`, false],
    ['129 characters', `svc_sdk_client_${'a'.repeat(129)}`, false],
    ['a trailing newline', `${CLIENT_KEY}\n`, false],
    ['a leading space', ` ${CLIENT_KEY}`, false],
    ['a dot', 'svc_sdk_client_abc.defgh', false],
    ['non-ASCII letters', 'svc_sdk_client_abcdéfgh', false],
    ['an uppercase prefix', 'SVC_SDK_CLIENT_abcdefgh', false],
    ['a String object', Object(CLIENT_KEY), false],
  ])('an sdkKey with %s: accepted %s', async (_label, sdkKey, accepted) => {
    const create = () => createClient({ ...quiet, sdkKey, transport: () => new Promise(() => undefined) } as never);
    if (!accepted) {
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(/^sdkKey must be svc_sdk_client_ or svc_sdk_server_ then 8 to 128 letters, digits, _ or - \(got /);
      return;
    }
    await create().close();
  });

  // docs/client.md, Errors: a ConfigError says what the option must be, in words, and what it got.
  const messageOf = (options: object) => {
    try {
      createClient({ ...quiet, ...options, transport: () => new Promise(() => undefined) } as never);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('createClient did not throw');
  };

  const STREAM_URL_RULE = 'ws(s):// or http(s)://host[/path][/sdk/v1/stream]';

  it('streamUrl takes the origin, a path prefix, or the full stream URL the server prints, trailing slash or not', () => {
    const streamTransport = defineStreamTransport(() => ({ send() {}, close() {} }));
    for (const streamUrl of ['ws://127.0.0.1:8787', 'ws://127.0.0.1:8787/sdk/v1/stream', 'wss://flags.test/edge/eu/sdk/v1/stream/', 'https://flags.test/edge/eu', 'wss://flags.test/sdk-proxy']) {
      expect(() => createClient({ ...quiet, streamUrl, streamTransport, transport: () => new Promise(() => undefined) }).close(), streamUrl).not.toThrow();
    }
  });

  it.each([
    ['a missing baseUrl', { baseUrl: undefined }, 'baseUrl is required'],
    ['a null sdkKey', { sdkKey: null }, 'sdkKey is required'],
    ['a baseUrl without a scheme', { baseUrl: 'localhost:8787' }, 'baseUrl must be http(s)://host[/path] (got "localhost:8787")'],
    ['a baseUrl with a query', { baseUrl: 'https://flags.test/?env=1' }, 'baseUrl must be http(s)://host[/path] (got "https://flags.test/?env=1")'],
    ['a baseUrl that is a number', { baseUrl: 8787 }, 'baseUrl must be http(s)://host[/path] (got number)'],
    ['an ftp streamUrl', { streamUrl: 'ftp://x.test' }, `streamUrl must be ${STREAM_URL_RULE} (got "ftp://x.test")`],
    ['a streamUrl naming the snapshot route', { streamUrl: 'ws://127.0.0.1:8787/sdk/v1/snapshot' }, `streamUrl must be ${STREAM_URL_RULE} (got "ws://127.0.0.1:8787/sdk/v1/snapshot")`],
    ['a streamUrl naming no route of ours under /sdk/', { streamUrl: 'wss://flags.test/sdk/v1/streams' }, `streamUrl must be ${STREAM_URL_RULE} (got "wss://flags.test/sdk/v1/streams")`],
    ['a streamUrl past the stream route', { streamUrl: 'wss://flags.test/sdk/v1/stream/x' }, `streamUrl must be ${STREAM_URL_RULE} (got "wss://flags.test/sdk/v1/stream/x")`],
    ['a short sdkKey', { sdkKey: 'abc' }, 'sdkKey must be svc_sdk_client_ or svc_sdk_server_ then 8 to 128 letters, digits, _ or - (got "abc")'],
  ])('%s: the message says what is expected and what was received', (_label, options, message) => {
    expect(messageOf(options)).toBe(message);
  });

  it('a long value is cut to 40 characters; an sdkKey shows its first 15 only, so a server key never reaches a log', () => {
    expect(messageOf({ baseUrl: `flags.test/${'p'.repeat(100)}` })).toBe(`baseUrl must be http(s)://host[/path] (got "flags.test/${'p'.repeat(29)}")`);
    const secret = 'svc_sdk_server_THE_SECRET_PART_0001';
    const message = messageOf({ sdkKey: `${secret}\n` });
    expect(message).toMatch(/\(got "svc_sdk_server_"\)$/);
    expect(message).not.toContain('SECRET');
    // Control characters are escaped, as JSON strings: a trailing newline shows.
    expect(messageOf({ baseUrl: 'https://flags.test\n' })).toBe('baseUrl must be http(s)://host[/path] (got "https://flags.test\\n")');
  });

  it('options that are not an object (null, a string, a number) are a ConfigError about the sdkKey', () => {
    for (const options of [null, undefined, 'svc_sdk_client_test_key_0001', 42]) {
      expect(() => createClient(options as never)).toThrow(ConfigError);
    }
  });

  it('unknown options are ignored (no throw, no effect on the request)', async () => {
    const { client, requests, errors } = servedHarness(snapshotOf(1, { a: 1 }), { pollIntervall: 5, baseURL: 'https://elsewhere.test', sdk_key: 'x' } as never);
    await client.ready();
    expect(requests[0]!.url).toBe(`${BASE_URL}/sdk/v1/snapshot`);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a baseUrl with a path prefix and trailing slashes keeps the prefix and drops the slashes', async () => {
    const { client, requests, server } = servedHarness(snapshotOf(1, { a: 1 }), { baseUrl: 'https://flags.test/edge/eu///' });
    await client.ready();
    expect(requests[0]!.url).toBe('https://flags.test/edge/eu/sdk/v1/snapshot');
    await client.close();
  });

  // Was a bug: PATTERNS.baseUrl (src/options.ts) only checks `^https?://[^/]`. A baseUrl fetch
  // cannot use, or one whose query or fragment swallows the route, passes createClient; every
  // request then fails (as a NetworkError, retried for ever) or goes to the wrong URL.
  const unusableBaseUrls: Array<[string, string]> = [
    ['credentials (fetch refuses such a URL)', 'https://user:secret@flags.test'],
    ['a space in the host (not a URL)', 'https://flags .test'],
    ['an unclosed IPv6 bracket (not a URL)', 'https://[::1'],
    ['a query (the route lands in the query: GET /?x=1/sdk/v1/snapshot)', 'https://flags.test/?x=1'],
    ['a fragment (the route is dropped: GET /)', 'https://flags.test#edge'],
  ];
  for (const [label, baseUrl] of unusableBaseUrls) {
    it(`a baseUrl with ${label} is a ConfigError from createClient`, async () => {
      const server = snapshotServer(snapshotOf(1, { a: 1 }));
      let client: ReturnType<typeof createClient> | undefined;
      try {
        expect(() => {
          client = createClient({ ...quiet, baseUrl, transport: async (request) => server.handler(request) as never });
        }).toThrow(ConfigError);
      } finally {
        await client?.close();
      }
    });
  }

  it('a baseUrl with a path keeps it: the routes go under it', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { baseUrl: 'https://flags.test/edge/' });
    await client.ready();
    expect(new URL(requests[0]!.url).pathname).toBe('/edge/sdk/v1/snapshot');
    await client.close();
  });

  // Was a bug: options whose shape is never checked make createClient throw a TypeError (not a
  // ConfigError) from deep inside.
  const wrongShapes: Array<[string, Record<string, unknown>]> = [
    ['a scheduler without methods (TypeError: scheduler.clearTimeout is not a function)', { scheduler: {} }],
    ['a visibilitySource without subscribe (TypeError: visibility.subscribe is not a function)', { visibilitySource: { isVisible: () => true } }],
    ['an onlineSource that is a number (TypeError: online.subscribe is not a function)', { onlineSource: 5 }],
  ];
  for (const [label, extra] of wrongShapes) {
    it(`${label} is a ConfigError`, async () => {
      let client: ReturnType<typeof createClient> | undefined;
      let thrown: unknown;
      try {
        client = createClient({ ...quiet, ...extra } as never);
      } catch (error) {
        thrown = error;
      }
      await client?.close();
      expect(thrown).toBeInstanceOf(ConfigError);
    });
  }

  it('a transport that is not a function is an adapter failing at each request: a NetworkError naming it, through onError', async () => {
    const errors: unknown[] = [];
    const client = createClient({ ...quiet, transport: 'fetch' as never, onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    await client.close();
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect(String((errors[0] as Error).message)).toMatch(/transport is not a function/);
  });

  it('a createClient that fails on a bad onlineSource leaves no subscription to the visibilitySource behind', () => {
    // Was a bug: watchActivity (src/platform/activity.ts) subscribes to visibility before it touches the
    // online source; when that throws, createClient throws and the visibility subscription
    // (and, with events on, the event sender's pagehide/visibility listeners) stay live.
    const live = new Set<() => void>();
    const visibilitySource: VisibilitySource = {
      isVisible: () => true,
      subscribe: (listener) => {
        const entry = () => listener(true);
        live.add(entry);
        return () => void live.delete(entry);
      },
    };
    expect(() => createClient({ ...quiet, visibilitySource, onlineSource: {} as never })).toThrow(ConfigError);
    expect(live.size).toBe(0);
  });
});
