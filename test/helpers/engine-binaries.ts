import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'vitest';

export type BinaryAvailability = { kind: 'run'; path: string } | { kind: 'skip' | 'fail'; message: string };

const INSTALL = 'apt-get install -y redis-server postgresql';

/** `redis-server` from FLAGPLANE_REDIS_SERVER or PATH. */
export function redisServerPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.FLAGPLANE_REDIS_SERVER) return existsSync(env.FLAGPLANE_REDIS_SERVER) ? env.FLAGPLANE_REDIS_SERVER : undefined;
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The folder of `initdb` and `pg_ctl`: FLAGPLANE_PG_BIN, else Debian's newest /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.FLAGPLANE_PG_BIN
    ? [env.FLAGPLANE_PG_BIN]
    : (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [])
        .sort((a, b) => Number(b) - Number(a))
        .map((major) => join('/usr/lib/postgresql', major, 'bin'));
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/**
 * Whether a suite needing `what` can run. Missing, it is skipped — except on CI (`CI=true`),
 * where it fails: an engine suite that silently passes without its engine proves nothing.
 */
export function binaryAvailability(what: string, path: string | undefined, env: NodeJS.ProcessEnv = process.env): BinaryAvailability {
  if (path !== undefined) return { kind: 'run', path };
  if (env.CI === 'true') return { kind: 'fail', message: `${what} not found, and CI=true: install it (${INSTALL})` };
  return { kind: 'skip', message: `${what} not found: skipping its tests (${INSTALL})` };
}

/**
 * `describe` for tests that need local binaries: skipped with one line on stderr when one is
 * missing, failed on CI.
 */
export function describeWithBinaries(name: string, needs: readonly BinaryAvailability[], body: () => void): void {
  const missing = needs.filter((need): need is Exclude<BinaryAvailability, { kind: 'run' }> => need.kind !== 'run');
  if (missing.some((need) => need.kind === 'fail')) {
    describe(name, () => {
      it('has its binaries', () => {
        throw new Error(missing.map((need) => need.message).join('; '));
      });
    });
    return;
  }
  if (missing.length > 0) {
    console.warn(missing.map((need) => need.message).join('\n'));
    describe.skip(name, body);
    return;
  }
  describe(name, body);
}

/** A port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
