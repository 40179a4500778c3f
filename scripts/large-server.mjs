// The server side of `npm run bench:large` (scripts/bench-large.mjs), one child process per
// server, so that the coordinator's clients are not counted in its event loop:
//
//   node scripts/large-server.mjs reference <flags> [redis-url]
//     the reference server at its defaults (on Redis when a URL is given), the environment
//     `production` published with largeSnapshot(<flags>) through the programmatic API (no body
//     limit there), and a client key created for it;
//   node scripts/large-server.mjs bare
//     the baseline: a bare node:http server answering every GET with the bytes and headers the
//     coordinator sends it (picked by the request's Accept-Encoding), and every PUT or PATCH by
//     reading the body (gunzipped when it says gzip), JSON.parse and a 200.
//
// Each announces { port, … } over IPC once it listens, and stops on { type: 'stop' } or when
// the coordinator goes away.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { largeSnapshot } from './large-environment.mjs';
import { loadBundledServer } from './server-kit.mjs';

const ENVIRONMENT = 'production';

async function startReference(flagCount, redis) {
  const { startReferenceServer } = await loadBundledServer();
  // On Redis the demo credentials are refused unless asked for: this Redis is the bench's own.
  const engine = redis ? { redis, allowDemoCredentials: true } : {};
  const server = await startReferenceServer({ port: 0, ...engine });
  await server.publish(ENVIRONMENT, largeSnapshot(flagCount));
  const clientKey = await server.createKey(ENVIRONMENT, 'client');
  return { port: server.port, clientKey, adminToken: server.adminToken, close: () => server.close() };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `answers`: [{ acceptEncoding, status, headers, body }]; the first is the answer to any other header. */
function startBare(answers) {
  const server = createServer(async (req, res) => {
    if (req.method === 'GET') {
      const answer = answers.find((a) => a.acceptEncoding === (req.headers['accept-encoding'] ?? '')) ?? answers[0];
      res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.byteLength) });
      res.end(answer.body);
      return;
    }
    const raw = await readBody(req);
    const body = JSON.parse(String(req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw));
    const out = JSON.stringify({ ok: typeof body === 'object' });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(out.length) });
    res.end(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        close: () => new Promise((done) => (server.closeAllConnections(), server.close(done))),
      }),
    ),
  );
}

const [role, flags, redis] = process.argv.slice(2);
const target =
  role === 'reference'
    ? await startReference(Number(flags), redis)
    : await startBare((await new Promise((resolve) => process.once('message', resolve))).answers);
const { close, ...announced } = target;
process.send(announced);
process.on('message', async (message) => {
  if (message.type !== 'stop') return;
  await close();
  process.exit(0);
});
process.on('disconnect', () => process.exit(0));
