import demo from './demo.json';
import { isLoopbackListen } from './http/host-check';
import type { KeyRecord } from './stores/records';

/** The admin token of reference-server/demo.json, which anyone can read. */
export const DEMO_ADMIN_TOKEN: string = demo.adminToken;

/** The SDK keys of reference-server/demo.json. */
export const DEMO_KEYS: ReadonlySet<string> = new Set(demo.environments.flatMap((environment) => environment.keys.map((key) => key.key)));

/** Why a server is reachable by others than its developer: its listen host, or shared engines. */
export type Exposure = { kind: 'private' } | { kind: 'host'; host: string } | { kind: 'engines'; engines: readonly string[] };

/** Off loopback, or on Redis or Postgres (a deployment's stores), a server is exposed. */
export function exposureOf(host: string, engines: { redis?: string; postgres?: string }): Exposure {
  if (!isLoopbackListen(host)) return { kind: 'host', host };
  const named = [engines.redis === undefined ? [] : ['Redis'], engines.postgres === undefined ? [] : ['Postgres']].flat();
  return named.length === 0 ? { kind: 'private' } : { kind: 'engines', engines: named };
}

/**
 * `startReferenceServer` refused to serve the demo's well-known admin token or SDK keys
 * while exposed (off loopback, or on Redis or Postgres) without `allowDemoCredentials`.
 */
export class DemoCredentialsError extends Error {
  override readonly name = 'DemoCredentialsError';
  readonly code = 'demo_credentials';
  constructor(
    readonly exposure: Exclude<Exposure, { kind: 'private' }>,
    /** The demo admin token and keys the server would have served. */
    readonly credentials: readonly string[],
  ) {
    const where = exposure.kind === 'host' ? `listening on ${exposure.host} (not loopback)` : `on ${exposure.engines.join(' and ')}`;
    super(
      `refusing to start ${where} with the demo credentials anyone can read in reference-server/demo.json (${credentials.join(', ')}): ` +
        'use a config of your own with your own keys (--config, the config option) and your own admin token (adminToken in it, --admin-token or FLAGPLANE_ADMIN_TOKEN), ' +
        'or opt in to serving the demo credentials with --allow-demo-credentials (the allowDemoCredentials option)',
    );
  }
}

/**
 * The refusal of an exposed server that would serve the demo admin token or an active demo
 * key (wherever they came from: the implicit demo config, a copy of it, a Redis it seeded).
 */
export function demoCredentialsRefusal(exposure: Exposure, adminToken: string, keys: readonly KeyRecord[]): DemoCredentialsError | undefined {
  if (exposure.kind === 'private') return undefined;
  const demoKeys = keys.filter((key) => !key.revoked && DEMO_KEYS.has(key.key)).map((key) => key.key);
  const credentials = [...(adminToken === DEMO_ADMIN_TOKEN ? [`admin token ${DEMO_ADMIN_TOKEN}`] : []), ...demoKeys];
  return credentials.length === 0 ? undefined : new DemoCredentialsError(exposure, credentials);
}
