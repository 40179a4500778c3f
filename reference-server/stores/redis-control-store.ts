import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { ControlChange, ControlSeed, ControlState, ControlStore, PublishOutcome } from './contracts';
import { EngineError, redactUrl } from './engine-error';
import type { ModuleImporter } from './optional-package';
import { loadOptionalPackage } from './optional-package';
import { redisKeys } from './redis-keys';
import { singleFlight } from './single-flight';
import { loadState, readCurrent, readSnapshot } from './redis-reads';
import { snapshotJson } from './snapshot-json';
import type { PublishedAnnouncement } from './redis-announced-versions';
import { createLatestVersions, editAnnouncement, publishedChange } from './redis-announced-versions';
import { changesFrom } from './working-copy';
import { ADD_KEY_SCRIPT, PUBLISH_SCRIPT, REVOKE_KEY_SCRIPT, SEED_SCRIPT } from './redis-scripts';

export interface RedisControlOptions {
  /** `redis://[:password@]host:port[/db]`, or `rediss://` for TLS. */
  url: string;
  /** Every key and the channel start with it, so deployments can share one Redis. @default 'flagplane:' */
  prefix?: string;
  /** Errors of the connections after start (they reconnect by themselves). @default ignore */
  onError?: (error: unknown) => void;
  importer?: ModuleImporter;
  /** Snapshot versions kept per environment, the current one included; a publish removes older ones. @default every version */
  versionsKept?: number;
  /** Called after a publish of this store removed old versions, with how many. */
  onPruned?: (versions: number) => void;
}

/** What goes over the channel: a change plus the instance that made it. */
type Announcement = { origin: string } & (PublishedAnnouncement | Exclude<ControlChange, { kind: 'published' }>);

export const DEFAULT_REDIS_PREFIX = 'flagplane:';

/** One-flag edits stored as edits alone after a whole version, before the next is stored whole (a read applies at most these). */
export const EDITS_BETWEEN_WHOLE_VERSIONS = 32;

/** The JSON stored for a version: the snapshot without `version` (the hash field), assembled from its flags' JSON. */
function storedSnapshot(draft: Omit<FlagSnapshot, 'version'>, environmentId: string): Buffer {
  const { version: _version, ...envelope } = draft as FlagSnapshot;
  return snapshotJson({ ...envelope, environmentId });
}

/** A connection named `name` (CLIENT LIST shows it); errors after the first connect go to `onError`. */
export async function connect(Redis: typeof RedisClient, url: string, name: string, onError: (error: unknown) => void): Promise<RedisClient> {
  const client = new Redis(url, { lazyConnect: true, connectionName: name, maxRetriesPerRequest: 2 });
  let connected = false;
  // A failure to connect is the error connect() rejects with; only later ones are reported.
  client.on('error', (error) => {
    if (connected) onError(error);
  });
  try {
    await client.connect();
    connected = true;
    return client;
  } catch (cause) {
    client.disconnect();
    throw new EngineError('redis', `cannot connect to Redis at ${redactUrl(url)}: ${(cause as Error).message}`, { cause });
  }
}

/** A PING on `client`; one that is not connected fails at once instead of queueing the PING. */
async function ping(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') throw new EngineError('redis', `the Redis connection is ${client.status}`);
  await client.ping().catch((cause: Error) => Promise.reject(new EngineError('redis', `Redis did not answer: ${cause.message}`, { cause })));
}

/** The command connection, and the subscriber connection listening on `channel`. */
async function connectClients(Redis: typeof RedisClient, url: string, channel: string, onError: (error: unknown) => void) {
  const command = await connect(Redis, url, 'flagplane-command', onError);
  try {
    const subscriber = await connect(Redis, url, 'flagplane-subscriber', onError);
    await subscriber.subscribe(channel);
    return { command, subscriber };
  } catch (error) {
    command.disconnect();
    throw error;
  }
}

/** The arguments of SEED_SCRIPT: the prefix, then each list counted and flattened. */
function seedArguments(prefix: string, seed: ControlSeed): Array<string | number> {
  const args: Array<string | number> = [prefix, seed.environments.length];
  for (const { id, kind, snapshot } of seed.environments) args.push(id, JSON.stringify({ kind }), snapshot.version, storedSnapshot(snapshot, id).toString('utf8'));
  args.push(seed.keys.length);
  for (const { key, kind, environmentId } of seed.keys) args.push(key, JSON.stringify({ kind, environmentId }));
  args.push(seed.traits.length);
  for (const { environmentId, userId, traits } of seed.traits) args.push(environmentId, userId, JSON.stringify(traits));
  return args;
}

/**
 * Runs what the subscriber hears one piece at a time, in channel order: a later version never
 * reaches the listeners before an earlier one. Once closed, what arrives or is still queued is
 * dropped, not read from a closing connection; close() resolves when the piece in hand is done.
 */
function createReceiver(onError: (error: unknown) => void) {
  let received = Promise.resolve();
  let closing = false;
  return {
    handle(work: () => Promise<void>): void {
      if (closing) return;
      received = received
        .then(async () => {
          if (!closing) await work();
        })
        .catch(onError);
    },
    close(): Promise<void> {
      closing = true;
      return received;
    },
  };
}

/** The change an announcement stands for (a published version: redis-announced-versions.ts). */
function changeOf(announcement: Announcement, publishedChangeOf: (announcement: PublishedAnnouncement) => Promise<ControlChange | undefined>) {
  const { origin: _origin, ...change } = announcement;
  return change.kind === 'published' ? publishedChangeOf(change) : Promise.resolve(change);
}

/** Passes the changes other instances announce on `channel` to the listeners. */
function passOnChanges(hearing: {
  subscriber: RedisClient;
  channel: string;
  /** This instance: its own announcements are not passed on. */
  origin: string;
  listeners: ReadonlySet<(change: ControlChange) => void>;
  received: ReturnType<typeof createReceiver>;
  changeOf(announcement: Announcement): Promise<ControlChange | undefined>;
  load(): Promise<ControlState>;
}): void {
  const { subscriber, channel, origin, listeners, received } = hearing;
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    received.handle(async () => {
      const announcement = JSON.parse(text) as Announcement;
      if (announcement.origin === origin) return;
      const change = await hearing.changeOf(announcement);
      if (change) for (const listener of listeners) listener(change);
    });
  });
  // Registered after the first connect, so it fires only when the subscriber reconnects: what
  // was announced meanwhile is lost, so everything is read again and passed on as changes.
  subscriber.on('ready', () => {
    received.handle(async () => {
      const changes = changesFrom(await hearing.load());
      for (const change of changes) for (const listener of listeners) listener(change);
    });
  });
}

/** The control store on Redis (docs/reference-server.md, "Redis"): shared by every instance on the same prefix. */
export async function openRedisControlStore(options: RedisControlOptions): Promise<ControlStore> {
  const { Redis } = await loadOptionalPackage<typeof import('ioredis')>('--redis', 'ioredis', options.importer);
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const k = redisKeys(prefix);
  const onError = options.onError ?? (() => undefined);
  const { command, subscriber } = await connectClients(Redis, options.url, k.channel, onError);
  const origin = randomUUID();
  const listeners = new Set<(change: ControlChange) => void>();
  const announce = (change: Exclude<ControlChange, { kind: 'published' }>) => JSON.stringify({ origin, ...change });

  const latest = createLatestVersions();
  const load = async () => {
    const state = await loadState(command, k);
    for (const { current: version, snapshots } of state.environments) latest.remember(snapshots.find((s) => s.version === version));
    return state;
  };
  const snapshotAt = async (environmentId: string, version: number) => latest.remember(await readSnapshot(command, k, environmentId, version));
  const current = async (environmentId: string) => latest.remember(await readCurrent(command, k, environmentId));
  const received = createReceiver(onError);
  const publishedChangeOf = (announcement: PublishedAnnouncement) => publishedChange(announcement, latest, { snapshotAt, current });
  passOnChanges({ subscriber, channel: k.channel, origin, listeners, received, changeOf: (announcement) => changeOf(announcement, publishedChangeOf), load });

  return {
    engine: 'redis',
    async seedIfEmpty(seed: ControlSeed) {
      return (await command.eval(SEED_SCRIPT, 1, k.environments, ...seedArguments(prefix, seed))) === 1;
    },
    load,
    current,
    async publish(environmentId, draft, basedOn, editedKey): Promise<PublishOutcome> {
      const keys = [k.environments, k.current(environmentId), k.snapshots(environmentId), k.edits(environmentId)];
      const edit = basedOn === undefined ? '' : editAnnouncement(draft, editedKey);
      const store = async (json: Buffer | '') => {
        const argv = [environmentId, json, basedOn ?? '', k.channel, origin, options.versionsKept ?? 0, edit, EDITS_BETWEEN_WHOLE_VERSIONS];
        return (await command.eval(PUBLISH_SCRIPT, 4, ...keys, ...argv)) as [string, number, number];
      };
      // A one-flag edit stores the edit alone, until the run of edits asks for a whole version.
      let reply = edit === '' ? undefined : await store('');
      if (reply === undefined || reply[0] === 'need-full') reply = await store(storedSnapshot(draft, environmentId));
      const [kind, version, removed] = reply;
      if (kind === 'unknown-environment') return { kind };
      if (kind === 'conflict') return { kind, current: version };
      if (removed > 0) options.onPruned?.(removed);
      // The draft is the publisher's own copy: stored as it is, its flag objects (and their JSON) shared with the versions made from it.
      const { version: _version, ...envelope } = draft as FlagSnapshot;
      return { kind: 'published', snapshot: latest.remember({ ...envelope, version, environmentId }) };
    },
    async addKey(record) {
      const { key, kind, environmentId } = record;
      const message = announce({ kind: 'key-added', record: { key, kind, environmentId } });
      return (await command.eval(ADD_KEY_SCRIPT, 1, k.keys, key, JSON.stringify({ kind, environmentId }), k.channel, message)) === 1;
    },
    async revokeKey(key) {
      return (await command.eval(REVOKE_KEY_SCRIPT, 2, k.keys, k.revoked, key, k.channel, announce({ kind: 'key-revoked', key }))) === 1;
    },
    async setTraits(environmentId, userId, traits) {
      const message = announce({ kind: 'traits-set', environmentId, userId, traits });
      await command.multi().hset(k.traits(environmentId), userId, JSON.stringify(traits)).publish(k.channel, message).exec();
    },
    async announceResync(environmentId) {
      await command.publish(k.channel, announce({ kind: 'resync', environmentId }));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ping: singleFlight(() => ping(command)),
    async close() {
      const handled = received.close();
      listeners.clear();
      // A message being handled finishes (or finds the receiver closed) before its connection quits.
      await handled;
      await Promise.all([subscriber, command].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
