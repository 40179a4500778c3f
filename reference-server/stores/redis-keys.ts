/** The Redis key layout under one deployment's prefix (docs/reference-server.md, "Redis"). */
export function redisKeys(prefix: string) {
  return {
    /** Hash: environment id → `{"kind"}`. Its existence marks a seeded deployment. */
    environments: `${prefix}environments`,
    /** String: the `current` version of the environment. */
    current: (environmentId: string) => `${prefix}env:${environmentId}:current`,
    /** Hash: version → the snapshot's JSON without `version`. */
    snapshots: (environmentId: string) => `${prefix}env:${environmentId}:snapshots`,
    /** Hash: version → the one-flag edit that made it from the version before, `{"key","flag"}`. */
    edits: (environmentId: string) => `${prefix}env:${environmentId}:edits`,
    /** Hash: SDK key → `{"kind","environmentId"}`. */
    keys: `${prefix}keys`,
    /** Set: the revoked SDK keys. */
    revoked: `${prefix}revoked`,
    /** Hash: user id → traits JSON. */
    traits: (environmentId: string) => `${prefix}traits:${environmentId}`,
    /** Hash: instance id → `{"startedAt","streams"}` of its latest heartbeat. */
    instances: `${prefix}instances`,
    /** Sorted set: instance id, scored by its latest heartbeat (ms, Redis's clock). */
    instancesSeen: `${prefix}instances:seen`,
    /** Pub/sub channel of every change, as `{ origin, kind, ... }` JSON. */
    channel: `${prefix}changes`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
