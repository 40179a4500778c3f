// Fan-out check: `npm run bench:stream [-- N]`. N clients stream from one reference server
// on loopback; one publish; prints the time until the last client holds the new version.
// It reports and never gates.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = Number(process.argv[2] ?? 1000);
const DEADLINE_MS = 60_000;

async function load(entry) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    external: ['ws'],
    logLevel: 'silent',
  });
  // Written next to node_modules so that the bundle can resolve `ws`.
  const { writeFile, mkdir } = await import('node:fs/promises');
  const dir = join(ROOT, 'node_modules', '.cache', 'flagplane-bench');
  await mkdir(dir, { recursive: true });
  const file = join(dir, entry.replace(/[/.]/g, '_') + '.mjs');
  await writeFile(file, result.outputFiles[0].text);
  return import(file);
}

const until = async (check, what) => {
  const deadline = Date.now() + DEADLINE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const { startReferenceServer } = await load('reference-server/index.ts');
const { createClient } = await load('src/index.ts');
const { wsTransport } = await load('adapters/ws.ts');

// Every client connects from 127.0.0.1: the per-address stream limit (500) is off, the rest default.
const server = await startReferenceServer({ port: 0, limits: { streamsPerAddress: 0 } });
const sdkKey = await server.createKey('production', 'client');
const clients = [];
try {
  const connectStart = performance.now();
  for (let i = 0; i < CLIENTS; i++) {
    clients.push(
      createClient({ sdkKey, baseUrl: server.baseUrl, streamUrl: server.baseUrl, streamTransport: wsTransport, pollInterval: 600_000, readyTimeout: DEADLINE_MS, events: false }),
    );
  }
  await until(() => clients.every((client) => client.getStatus().connection === 'streaming' && client.getStatus().version !== null), 'every client streaming');
  const connectMs = performance.now() - connectStart;

  const publishStart = performance.now();
  const { version } = await server.publish('production', {
    schemaVersion: 1,
    environmentId: 'production',
    flags: { 'bench-flag': { on: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 'bench', clientSide: true } },
  });
  await until(() => clients.every((client) => client.getStatus().version === version), 'every client to hold the new version');
  const fanOutMs = performance.now() - publishStart;

  console.log(`flagplane stream fan-out — ${CLIENTS} clients, one reference server on loopback, node ${process.version}`);
  console.log(`connect + first snapshot, all clients: ${connectMs.toFixed(0)} ms`);
  console.log(`publish → last client holds version ${version}: ${fanOutMs.toFixed(0)} ms`);
} catch (error) {
  console.error('bench-stream failed:', error.message);
} finally {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
}
process.exitCode = 0;
