/**
 * Lua scripts of the Redis control store. Each runs atomically, so a version is allocated once
 * across every instance and each change is announced on the channel in the order it was made.
 * Snapshots are stored as the JSON the server wrote (never re-encoded by Lua's cjson, whose
 * numbers keep 14 digits); the hash field is the version. A one-flag edit is stored as the edit
 * alone, against the version before (redis-announced-versions.ts).
 */

/** Lua: the newest version at most `atMost` stored whole in the hash `key`, or nil. */
const NEWEST_WHOLE = `
local function newestWhole(key, atMost)
  local best = nil
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local v = tonumber(field)
    if v <= atMost and (best == nil or v > best) then best = v end
  end
  return best
end
`;

/**
 * KEYS: environments, current, snapshots, edits. ARGV: environment id, snapshot JSON or '' (a
 * one-flag edit stored as its edit), basedOn or '', channel, origin, versions kept (0: every
 * one), the one-flag edit's JSON or '' (announced as `edit`, a string), the longest run of edits
 * after a whole version. An edit past that run answers `need-full`: the caller sends the whole
 * version (a checkpoint). Past the versions kept, removes every version older than the newest
 * whole one the oldest kept version is built on, and answers how many it removed.
 */
export const PUBLISH_SCRIPT = `${NEWEST_WHOLE}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return {'unknown-environment', 0, 0} end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= current then return {'conflict', current, 0} end
local version = current + 1
if ARGV[2] == '' then
  local base = newestWhole(KEYS[3], current)
  if base == nil or version - base > tonumber(ARGV[8]) then return {'need-full', current, 0} end
  redis.call('HSET', KEYS[4], version, ARGV[7])
else
  redis.call('HSET', KEYS[3], version, ARGV[2])
end
redis.call('SET', KEYS[2], version)
local kept = tonumber(ARGV[6])
local removed = 0
if kept > 0 then
  local versions = {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[3])) do table.insert(versions, tonumber(field)) end
  for _, field in ipairs(redis.call('HKEYS', KEYS[4])) do table.insert(versions, tonumber(field)) end
  if #versions > kept then
    table.sort(versions)
    local base = newestWhole(KEYS[3], versions[#versions - kept + 1])
    for _, v in ipairs(versions) do
      if v < base then removed = removed + redis.call('HDEL', KEYS[3], v) + redis.call('HDEL', KEYS[4], v) end
    end
  end
end
local message = {origin = ARGV[5], kind = 'published', environmentId = ARGV[1], version = version}
if ARGV[7] ~= '' then message.edit = ARGV[7] end
redis.call('PUBLISH', ARGV[4], cjson.encode(message))
return {'published', version, removed}
`;

/**
 * KEYS: current, snapshots, edits. ARGV: a version, or '' for the current one. That version as
 * the newest whole version at or before it and the edits after it, read together (a publish may
 * remove older versions): {version, whole version, its JSON, edit JSON…}, or nil when it is gone.
 */
export const VERSION_SCRIPT = `${NEWEST_WHOLE}
local version = tonumber(ARGV[1] ~= '' and ARGV[1] or (redis.call('GET', KEYS[1]) or 'none'))
if not version then return false end
local base = newestWhole(KEYS[2], version)
if base == nil then return false end
local reply = {tostring(version), tostring(base), redis.call('HGET', KEYS[2], base)}
for v = base + 1, version do
  local edit = redis.call('HGET', KEYS[3], v)
  if not edit then return false end
  table.insert(reply, edit)
end
return reply
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
