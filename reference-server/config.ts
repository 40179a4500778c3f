import { readFile } from 'node:fs/promises';
import { resolveLimits, type ServerLimits } from './http/limits';
import type { FlagSnapshot } from '../src/snapshot/snapshot-types';
import demo from './demo.json';
import { kindOfKey, SDK_KEY_PATTERN } from './http/sdk-keys';
import { checkSnapshotStructure } from './validation/snapshot-structure';
import type { EnvironmentKind, KeyKind, StoredTraits } from './stores/records';
import type { ControlSeed } from './stores/contracts';
import { isRecord } from '../src/shared/guards';
import { parseTrustedProxies } from './http/client-address';
import { parseAllowedHosts } from './http/host-check';

/** An SDK key declared in the config. Its prefix must agree with `kind`. */
export interface KeyConfig {
  key: string;
  kind: KeyKind;
}

export interface EnvironmentConfig {
  /** Used in URLs and in the snapshot's `environmentId`: `[A-Za-z0-9._-]{1,64}`. */
  id: string;
  kind: EnvironmentKind;
  keys: KeyConfig[];
  /** The initial snapshot; its `version` defaults to 1 and its `environmentId` is set to `id`. */
  snapshot: FlagSnapshot;
  /** Trait overlays by user id. */
  traits?: { [userId: string]: StoredTraits };
}

/** The shape of `reference-server/demo.json` and of `--config` files. */
export interface ServerConfig {
  /** Bearer token of the admin API. @default a random token per start */
  adminToken?: string;
  environments: EnvironmentConfig[];
  /** Limits other than the defaults (http/limits.ts); the CLI's `--limit` and the `limits` option win over these. */
  limits?: Partial<ServerLimits>;
  /** The proxies whose `X-Forwarded-For` is believed: addresses and CIDR ranges; the `trustProxy` option wins over it. */
  trustProxy?: string[];
  /** Host names served besides loopback ones; the `allowedHosts` option wins over it. */
  allowedHosts?: string[];
}

/** A config that does not have the shape of {@link ServerConfig}; the message names the member at fault. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly path: string,
    readonly detail: string,
    readonly file?: string,
  ) {
    super([file === undefined ? '' : `${file}:`, path, detail].filter(Boolean).join(' '));
  }
}

const ENVIRONMENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

function parseKey(value: unknown, path: string, seen: Set<string>): KeyConfig {
  if (!isRecord(value)) throw new ConfigError(path, 'must be an object { key, kind }');
  const { key, kind } = value;
  if (kind !== 'server' && kind !== 'client') throw new ConfigError(`${path}.kind`, 'must be "server" or "client"');
  if (typeof key !== 'string' || !SDK_KEY_PATTERN.test(key)) {
    throw new ConfigError(`${path}.key`, `must match ${SDK_KEY_PATTERN.source}`);
  }
  if (kindOfKey(key) !== kind) throw new ConfigError(`${path}.key`, `has the prefix of a ${kindOfKey(key)} key, not ${kind}`);
  if (seen.has(key)) throw new ConfigError(`${path}.key`, 'is declared twice');
  seen.add(key);
  return { key, kind };
}

/** A deep copy, so the running server never shares objects with the parsed input. */
function copy<T>(value: T, path: string): T {
  try {
    return structuredClone(value);
  } catch (error) {
    // Nested deeper than the stack allows.
    throw new ConfigError(path, `cannot be copied: ${(error as Error).message}`);
  }
}

function parseTraits(value: unknown, path: string): { [userId: string]: StoredTraits } {
  if (!isRecord(value)) throw new ConfigError(path, 'must be an object of user id → traits object');
  for (const [userId, traits] of Object.entries(value)) {
    if (!isRecord(traits)) throw new ConfigError(`${path}.${userId}`, 'must be an object');
  }
  return copy(value, path) as { [userId: string]: StoredTraits };
}

function parseSnapshot(value: unknown, path: string, environmentId: string): FlagSnapshot {
  const check = checkSnapshotStructure(value, path);
  if (!check.ok) throw new ConfigError(check.path, check.problem);
  return { ...copy(check.snapshot, path), version: check.snapshot.version ?? 1, environmentId };
}

function parseEnvironment(value: unknown, path: string, seenIds: Set<string>, seenKeys: Set<string>): EnvironmentConfig {
  if (!isRecord(value)) throw new ConfigError(path, 'must be an object');
  const { id, kind, keys, snapshot, traits } = value;
  if (typeof id !== 'string' || !ENVIRONMENT_ID_PATTERN.test(id)) {
    throw new ConfigError(`${path}.id`, `must match ${ENVIRONMENT_ID_PATTERN.source}`);
  }
  if (seenIds.has(id)) throw new ConfigError(`${path}.id`, `is declared twice ("${id}")`);
  seenIds.add(id);
  if (kind !== 'production' && kind !== 'staging') {
    throw new ConfigError(`${path}.kind`, 'must be "production" or "staging"');
  }
  if (!Array.isArray(keys)) throw new ConfigError(`${path}.keys`, 'must be an array');
  const environment: EnvironmentConfig = {
    id,
    kind,
    keys: keys.map((key, i) => parseKey(key, `${path}.keys[${i}]`, seenKeys)),
    snapshot: parseSnapshot(snapshot, `${path}.snapshot`, id),
  };
  if (traits !== undefined) environment.traits = parseTraits(traits, `${path}.traits`);
  return environment;
}

/** Validates an untrusted value (parsed JSON) as a {@link ServerConfig}; throws {@link ConfigError}. */
/** The limits a config gives, checked (the defaults are not filled in: options and the CLI may still change them). */
function resolveLimitsGiven(given: Record<string, unknown>): Partial<ServerLimits> {
  resolveLimits(given);
  return given as Partial<ServerLimits>;
}

/** A list member (`trustProxy`, `allowedHosts`): strings that `check` accepts. */
function parseList(value: unknown, path: string, check: (entries: readonly string[]) => unknown): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) throw new ConfigError(path, 'must be an array of strings');
  try {
    check(value as string[]);
  } catch (error) {
    throw new ConfigError(path, (error as Error).message);
  }
  return [...(value as string[])];
}

export function parseServerConfig(value: unknown): ServerConfig {
  if (!isRecord(value)) throw new ConfigError('', 'the config must be a JSON object');
  const { adminToken, environments } = value;
  if (adminToken !== undefined && (typeof adminToken !== 'string' || adminToken.length < 8)) {
    throw new ConfigError('adminToken', 'must be a string of at least 8 characters');
  }
  if (!Array.isArray(environments) || environments.length === 0) {
    throw new ConfigError('environments', 'must be a non-empty array');
  }
  const seenIds = new Set<string>();
  const seenKeys = new Set<string>();
  const config: ServerConfig = {
    environments: environments.map((env, i) => parseEnvironment(env, `environments[${i}]`, seenIds, seenKeys)),
  };
  if (adminToken !== undefined) config.adminToken = adminToken;
  if (value.trustProxy !== undefined) config.trustProxy = parseList(value.trustProxy, 'trustProxy', parseTrustedProxies);
  if (value.allowedHosts !== undefined) config.allowedHosts = parseList(value.allowedHosts, 'allowedHosts', parseAllowedHosts);
  if (value.limits !== undefined) {
    if (!isRecord(value.limits)) throw new ConfigError('limits', 'must be an object of limits');
    try {
      config.limits = resolveLimitsGiven(value.limits);
    } catch (error) {
      throw new ConfigError('limits', (error as Error).message);
    }
  }
  return config;
}

/** Reads and validates a JSON config file; errors name the file. */
export async function loadConfigFile(file: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ConfigError('', `cannot be read: ${(cause as Error).message}`, file);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ConfigError('', `is not JSON: ${(cause as Error).message}`, file);
  }
  try {
    return parseServerConfig(json);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.path, error.detail, file);
    throw error;
  }
}

/** A fresh copy of the demo config (`reference-server/demo.json`). */
export function demoConfig(): ServerConfig {
  return parseServerConfig(demo);
}

/** What a config writes into an empty control store. */
export function seedFromConfig(config: ServerConfig): ControlSeed {
  return {
    environments: config.environments.map(({ id, kind, snapshot }) => ({ id, kind, snapshot: { ...snapshot, environmentId: id } })),
    keys: config.environments.flatMap((env) => env.keys.map(({ key, kind }) => ({ key, kind, environmentId: env.id }))),
    traits: config.environments.flatMap((env) =>
      Object.entries(env.traits ?? {}).map(([userId, traits]) => ({ environmentId: env.id, userId, traits })),
    ),
  };
}
