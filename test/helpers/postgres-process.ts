import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './engine-binaries';

const run = promisify(execFile);

/** A Postgres cluster of one test file, in a temporary folder; never the package's default cluster. */
export interface PostgresProcess {
  /** A fresh, empty database on the cluster, as a URL. */
  createDatabase(): Promise<string>;
  /** Stops the cluster (fast shutdown: sessions are cut) and keeps its data, for {@link PostgresProcess.restart}. */
  halt(): Promise<void>;
  /** Starts a halted cluster again on its port, with its data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Postgres refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function asClusterOwner(binDir: string, tool: string, args: string[]) {
  const path = join(binDir, tool);
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

export async function startPostgres(binDir: string): Promise<PostgresProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await asClusterOwner(binDir, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => asClusterOwner(binDir, 'pg_ctl', ['start', '-D', data, '-w', '-l', join(dir, 'log'), '-o', options]);
  const halt = () => asClusterOwner(binDir, 'pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
  await start();
  const base = `postgres://postgres@127.0.0.1:${port}`;
  let databases = 0;
  return {
    async createDatabase() {
      databases += 1;
      const name = `flagplane_test_${databases}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    async halt() {
      await halt();
    },
    async restart() {
      await start();
    },
    async stop() {
      await halt().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
