import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { EnvironmentKind, KeyRecord, StoredTraits } from './records';
import type { ControlChange, ControlSeed, ControlState, ControlStore, PublishOutcome } from './contracts';
import { EngineError, redactUrl } from './engine-error';
import type { ModuleImporter } from './optional-package';
import { loadOptionalPackage } from './optional-package';
import { redisKeys } from './redis-keys';
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
}

/** What goes over the channel: a change plus the instance that made it. */
type Announcement = { origin: string } & (
  | { kind: 'published'; environmentId: string; version: number }
  | Exclude<ControlChange, { kind: 'published' }>
);

export const DEFAULT_REDIS_PREFIX = 'flagplane:';

function storedSnapshot(draft: Omit<FlagSnapshot, 'version'>, environmentId: string): string {
  const { version: _version, ...envelope } = draft as FlagSnapshot;
  return JSON.stringify({ ...envelope, environmentId });
}

function parseSnapshot(text: string, version: number, environmentId: string): FlagSnapshot {
  return { ...(JSON.parse(text) as FlagSnapshot), version, environmentId };
}

async function connect(Redis: typeof RedisClient, url: string, name: string, onError: (error: unknown) => void): Promise<RedisClient> {
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

/** The control store on Redis (docs/reference-server.md, "Redis"): shared by every instance on the same prefix. */
export async function openRedisControlStore(options: RedisControlOptions): Promise<ControlStore> {
  const { Redis } = await loadOptionalPackage<typeof import('ioredis')>('--redis', 'ioredis', options.importer);
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const k = redisKeys(prefix);
  const onError = options.onError ?? (() => undefined);
  const command = await connect(Redis, options.url, 'flagplane-command', onError);
  let subscriber: RedisClient;
  try {
    subscriber = await connect(Redis, options.url, 'flagplane-subscriber', onError);
    await subscriber.subscribe(k.channel);
  } catch (error) {
    command.disconnect();
    throw error;
  }
  const origin = randomUUID();
  const listeners = new Set<(change: ControlChange) => void>();
  const announce = (change: Exclude<ControlChange, { kind: 'published' }>) => JSON.stringify({ origin, ...change });

  const snapshotAt = async (environmentId: string, version: number) => {
    const text = await command.hget(k.snapshots(environmentId), String(version));
    return text === null ? undefined : parseSnapshot(text, version, environmentId);
  };
  const changeOf = async (announcement: Announcement): Promise<ControlChange | undefined> => {
    const { origin: _origin, ...change } = announcement;
    if (change.kind !== 'published') return change;
    const snapshot = await snapshotAt(change.environmentId, change.version);
    return snapshot && { kind: 'published', environmentId: change.environmentId, snapshot };
  };
  const load = async (): Promise<ControlState> => {
    const environments = await command.hgetall(k.environments);
    const ids = Object.keys(environments);
    const [keys, revoked, perEnvironment] = await Promise.all([
      command.hgetall(k.keys),
      command.smembers(k.revoked),
      Promise.all(ids.map((id) => Promise.all([command.get(k.current(id)), command.hgetall(k.snapshots(id)), command.hgetall(k.traits(id))]))),
    ]);
    const revokedSet = new Set(revoked);
    return {
      environments: ids.map((id, i) => {
        const [current, snapshots] = perEnvironment[i] ?? [null, {}];
        const { kind } = JSON.parse(environments[id] ?? '{}') as { kind: EnvironmentKind };
        const stored = Object.entries(snapshots).map(([version, text]) => parseSnapshot(text, Number(version), id));
        return { id, kind, current: Number(current ?? 0), snapshots: stored.sort((a, b) => a.version - b.version) };
      }),
      keys: Object.entries(keys).map(([key, text]) => ({ key, ...(JSON.parse(text) as Omit<KeyRecord, 'key' | 'revoked'>), revoked: revokedSet.has(key) })),
      traits: ids.flatMap((id, i) =>
        Object.entries(perEnvironment[i]?.[2] ?? {}).map(([userId, text]) => ({ environmentId: id, userId, traits: JSON.parse(text) as StoredTraits })),
      ),
    };
  };

  // One at a time, in channel order: a later version never reaches the listeners before an earlier one.
  let received = Promise.resolve();
  /** Set by close(): what arrives or is still queued then is dropped, not read from a closing connection. */
  let closing = false;
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== k.channel || closing) return;
    received = received
      .then(async () => {
        if (closing) return;
        const announcement = JSON.parse(text) as Announcement;
        if (announcement.origin === origin) return;
        const change = await changeOf(announcement);
        if (change) for (const listener of listeners) listener(change);
      })
      .catch(onError);
  });
  // Registered after the first connect, so it fires only when the subscriber reconnects: what
  // was announced meanwhile is lost, so everything is read again and passed on as changes.
  subscriber.on('ready', () => {
    if (closing) return;
    received = received
      .then(async () => {
        if (closing) return;
        const changes = changesFrom(await load());
        for (const change of changes) for (const listener of listeners) listener(change);
      })
      .catch(onError);
  });

  return {
    engine: 'redis',
    async seedIfEmpty(seed: ControlSeed) {
      const args: Array<string | number> = [prefix, seed.environments.length];
      for (const { id, kind, snapshot } of seed.environments) args.push(id, JSON.stringify({ kind }), snapshot.version, storedSnapshot(snapshot, id));
      args.push(seed.keys.length);
      for (const { key, kind, environmentId } of seed.keys) args.push(key, JSON.stringify({ kind, environmentId }));
      args.push(seed.traits.length);
      for (const { environmentId, userId, traits } of seed.traits) args.push(environmentId, userId, JSON.stringify(traits));
      return (await command.eval(SEED_SCRIPT, 1, k.environments, ...args)) === 1;
    },
    load,
    async current(environmentId) {
      const current = await command.get(k.current(environmentId));
      return current === null ? undefined : snapshotAt(environmentId, Number(current));
    },
    async publish(environmentId, draft, basedOn): Promise<PublishOutcome> {
      const keys = [k.environments, k.current(environmentId), k.snapshots(environmentId)];
      const json = storedSnapshot(draft, environmentId);
      const [kind, version] = (await command.eval(PUBLISH_SCRIPT, 3, ...keys, environmentId, json, basedOn ?? '', k.channel, origin)) as [string, number];
      if (kind === 'unknown-environment') return { kind };
      if (kind === 'conflict') return { kind, current: version };
      return { kind: 'published', snapshot: parseSnapshot(json, version, environmentId) };
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
    async close() {
      closing = true;
      listeners.clear();
      // A message being handled finishes (or finds `closing`) before its connection quits.
      await received;
      await Promise.all([subscriber, command].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
