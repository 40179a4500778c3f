/**
 * Lua scripts of the Redis control store. Each runs atomically, so a version is allocated once
 * across every instance and each change is announced on the channel in the order it was made.
 * Snapshots are stored as the JSON the server wrote (never re-encoded by Lua's cjson, whose
 * numbers keep 14 digits); the hash field is the version.
 */

/**
 * KEYS: environments, current, snapshots. ARGV: environment id, snapshot JSON, basedOn or '',
 * channel, origin, versions kept (0: every one), the one-flag edit's JSON or '' (announced as
 * `edit`, a string). Removes the oldest versions past the ones kept (the new one, now current,
 * is the newest) and answers how many it removed.
 */
export const PUBLISH_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return {'unknown-environment', 0, 0} end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= current then return {'conflict', current, 0} end
local version = current + 1
redis.call('HSET', KEYS[3], version, ARGV[2])
redis.call('SET', KEYS[2], version)
local kept = tonumber(ARGV[6])
local removed = 0
if kept > 0 and redis.call('HLEN', KEYS[3]) > kept then
  local versions = redis.call('HKEYS', KEYS[3])
  table.sort(versions, function(a, b) return tonumber(a) < tonumber(b) end)
  removed = #versions - kept
  for i = 1, removed do redis.call('HDEL', KEYS[3], versions[i]) end
end
local message = {origin = ARGV[5], kind = 'published', environmentId = ARGV[1], version = version}
if ARGV[7] ~= '' then message.edit = ARGV[7] end
redis.call('PUBLISH', ARGV[4], cjson.encode(message))
return {'published', version, removed}
`;

/** KEYS: current, snapshots. The current version and its snapshot JSON, read together (a publish may remove any other version). */
export const CURRENT_SCRIPT = `
local version = redis.call('GET', KEYS[1])
if not version then return false end
return {version, redis.call('HGET', KEYS[2], version)}
`;

/** KEYS: keys. ARGV: key, record JSON, channel, message. */
export const ADD_KEY_SCRIPT = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/** KEYS: keys, revoked. ARGV: key, channel, message. */
export const REVOKE_KEY_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

/**
 * KEYS: environments. ARGV: prefix, then counted groups — environments (id, record JSON,
 * version, snapshot JSON), keys (key, record JSON), traits (environment id, user id, traits JSON).
 * Writes nothing when the environments hash exists: a config seeds an empty store only.
 */
export const SEED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local prefix = ARGV[1]
local i = 2
local environments = tonumber(ARGV[i]); i = i + 1
for _ = 1, environments do
  local id = ARGV[i]
  redis.call('HSET', KEYS[1], id, ARGV[i + 1])
  redis.call('SET', prefix .. 'env:' .. id .. ':current', ARGV[i + 2])
  redis.call('HSET', prefix .. 'env:' .. id .. ':snapshots', ARGV[i + 2], ARGV[i + 3])
  i = i + 4
end
local keys = tonumber(ARGV[i]); i = i + 1
for _ = 1, keys do
  redis.call('HSET', prefix .. 'keys', ARGV[i], ARGV[i + 1])
  i = i + 2
end
local traits = tonumber(ARGV[i]); i = i + 1
for _ = 1, traits do
  redis.call('HSET', prefix .. 'traits:' .. ARGV[i], ARGV[i + 1], ARGV[i + 2])
  i = i + 3
end
return 1
`;
