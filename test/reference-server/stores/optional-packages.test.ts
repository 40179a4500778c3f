import { describe, expect, it } from 'vitest';
import { runCli, USAGE } from '../../../reference-server/cli-main';
import { openStores } from '../../../reference-server/stores/open-stores';
import { loadOptionalPackage, MissingPackageError } from '../../../reference-server/stores/optional-package';
import { demoConfig } from '../../../reference-server/index';
import { seedFromConfig } from '../../../reference-server/config';
import { createEventLog } from '../../../reference-server/stores/event-log';
import { createIdentifyLog } from '../../../reference-server/stores/identify-log';

/** What Node's import() throws for a package that is not installed. */
function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/dist/reference-server/index.js`), { code: 'ERR_MODULE_NOT_FOUND' });
}

const memory = () => ({ identifyQueue: createIdentifyLog(), analytics: createEventLog() });

describe('optional engine packages', () => {
  it('names the package to install when --redis or --postgres finds it missing', async () => {
    const importer = async (name: string) => {
      throw notInstalled(name);
    };
    const redis = openStores({ redis: 'redis://127.0.0.1:6379', importer }, seedFromConfig(demoConfig()), memory());
    await expect(redis).rejects.toThrow(new MissingPackageError('--redis', 'ioredis'));
    await expect(redis).rejects.toThrow('--redis needs the ioredis package: npm install ioredis');
    const postgres = openStores({ postgres: 'postgres://127.0.0.1/flagplane', importer }, seedFromConfig(demoConfig()), memory());
    await expect(postgres).rejects.toThrow('--postgres needs the pg package: npm install pg');
  });

  it('passes other import failures through: a broken package is not a missing one', async () => {
    const missingDependency = Object.assign(new Error("Cannot find package 'cluster-key-slot' imported from /app/node_modules/ioredis/built/index.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadOptionalPackage('--redis', 'ioredis', () => Promise.reject(missingDependency))).rejects.toBe(missingDependency);
    const thrown = new SyntaxError('Unexpected token');
    await expect(loadOptionalPackage('--redis', 'ioredis', () => Promise.reject(thrown))).rejects.toBe(thrown);
  });

  it('loads nothing without --redis and --postgres', async () => {
    const imported: string[] = [];
    const engines = await openStores({ importer: async (name) => imported.push(name) }, seedFromConfig(demoConfig()), memory());
    expect(imported).toEqual([]);
    expect([engines.control.engine, engines.identifyQueue.engine, engines.analytics.engine]).toEqual(['memory', 'memory', 'memory']);
    await engines.close();
  });
});

describe('the CLI with engines', () => {
  const collect = () => {
    const io = { out: [] as string[], err: [] as string[] };
    return { io, sink: { out: (text: string) => io.out.push(text), err: (text: string) => io.err.push(text) } };
  };

  it('documents --redis, --postgres and their environment variables', () => {
    for (const word of ['--redis <url>', '--postgres <url>', 'FLAGPLANE_REDIS_URL', 'FLAGPLANE_POSTGRES_URL', 'ioredis', 'pg package']) expect(USAGE).toContain(word);
  });

  it('exits 1 naming the engine (and no password) when Redis cannot be reached, from the flag or the environment', async () => {
    const fromFlag = collect();
    const outcome = await runCli(['--port', '0', '--redis', 'redis://:s3cret@127.0.0.1:1'], fromFlag.sink, undefined, {});
    expect(outcome).toEqual({ kind: 'exit', code: 1 });
    expect(fromFlag.io.err.join('\n')).toMatch(/^cannot connect to Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/);
    expect(fromFlag.io.err.join('\n')).not.toContain('s3cret');

    const fromEnv = collect();
    expect(await runCli(['--port', '0'], fromEnv.sink, undefined, { FLAGPLANE_REDIS_URL: 'redis://127.0.0.1:1' })).toEqual({ kind: 'exit', code: 1 });
    expect(fromEnv.io.err.join('\n')).toMatch(/^cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/);
  });

  it('exits 1 naming Postgres when it cannot be reached', async () => {
    const run = collect();
    expect(await runCli(['--port', '0'], run.sink, undefined, { FLAGPLANE_POSTGRES_URL: 'postgres://flagplane@127.0.0.1:1/flagplane' })).toEqual({ kind: 'exit', code: 1 });
    expect(run.io.err.join('\n')).toMatch(/^cannot prepare Postgres at postgres:\/\/flagplane@127\.0\.0\.1:1\/flagplane/);
  });

  it('refuses an empty --redis', async () => {
    const run = collect();
    expect(await runCli(['--redis', ''], run.sink, undefined, {})).toEqual({ kind: 'exit', code: 2 });
    expect(run.io.err.join('\n')).toMatch(/--redis and --postgres need a URL/);
  });
});
