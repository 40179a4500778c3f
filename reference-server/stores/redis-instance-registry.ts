import type { Redis as RedisClient } from 'ioredis';
import type { InstanceEntry, InstanceRegistry, ThisInstance } from './instance-registry';
import { beatInterval, startBeats } from './instance-registry';
import type { ModuleImporter } from './optional-package';
import { loadOptionalPackage } from './optional-package';
import type { Schedule } from './readiness';
import { realSchedule } from './readiness';
import { connect, DEFAULT_REDIS_PREFIX } from './redis-control-store';
import { redisKeys } from './redis-keys';

export interface RedisInstanceRegistryOptions {
  url: string;
  /** @default 'flagplane:' */
  prefix?: string;
  self: ThisInstance;
  /** An entry not refreshed for this long is not listed, and removed. */
  ttlMs: number;
  /** Errors of heartbeats and of the connection after start. @default ignore */
  onError?: (error: unknown) => void;
  importer?: ModuleImporter;
  schedule?: Schedule;
}

/**
 * KEYS: the sorted set of last-seen times, the hash of entries. ARGV: this instance's id, its
 * entry ('' once it is closing: a listing then writes nothing), the TTL in ms, and 'list' to
 * answer the live entries. Writes the entry with Redis's clock (instances' clocks may differ),
 * removes every entry older than the TTL, and answers [id, lastSeenMs, entry, …] when listing.
 */
const BEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
local stale = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[3])))
for _, id in ipairs(stale) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
end
if ARGV[4] ~= 'list' then return {} end
local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {}
for i = 1, #live, 2 do
  out[#out + 1] = live[i]
  out[#out + 1] = live[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], live[i]) or '{}'
end
return out
`;

function entriesFrom(reply: string[]): InstanceEntry[] {
  const entries: InstanceEntry[] = [];
  for (let i = 0; i + 2 < reply.length; i += 3) {
    const { startedAt = '', streams = 0 } = JSON.parse(reply[i + 2] as string) as Partial<InstanceEntry>;
    entries.push({ id: reply[i] as string, startedAt, lastSeen: new Date(Number(reply[i + 1])).toISOString(), streams });
  }
  return entries.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
}

/**
 * The instance registry on Redis, over its own connection (`flagplane-instances`): registers
 * this instance at once, then every `ttlMs / 3` with its open streams.
 */
export async function openRedisInstanceRegistry(options: RedisInstanceRegistryOptions): Promise<InstanceRegistry> {
  const { Redis } = await loadOptionalPackage<typeof import('ioredis')>('--redis', 'ioredis', options.importer);
  const k = redisKeys(options.prefix ?? DEFAULT_REDIS_PREFIX);
  const onError = options.onError ?? (() => undefined);
  const { self, ttlMs } = options;
  const client: RedisClient = await connect(Redis, options.url, 'flagplane-instances', onError);
  let closed: Promise<void> | undefined;
  const beat = async (mode: 'beat' | 'list') => {
    const entry = closed ? '' : JSON.stringify({ startedAt: self.startedAt.toISOString(), streams: self.streams() });
    return (await client.eval(BEAT_SCRIPT, 2, k.instancesSeen, k.instances, self.id, entry, ttlMs, mode)) as string[];
  };
  await beat('beat').catch(onError);
  const beats = startBeats(async () => void (await beat('beat')), beatInterval(ttlMs), options.schedule ?? realSchedule, onError);
  const deregister = async () => {
    await beats.stop();
    await client.multi().zrem(k.instancesSeen, self.id).hdel(k.instances, self.id).exec().catch(onError);
    await client.quit().catch(() => client.disconnect());
  };
  return {
    engine: 'redis',
    list: async () => entriesFrom(await beat('list')),
    close: () => (closed ??= deregister()),
  };
}
