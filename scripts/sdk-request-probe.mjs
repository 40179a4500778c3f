// What the SDK's default transport sends with its snapshot request, learnt from one client
// pointed at a local server that answers nothing useful: scripts/bench-large.mjs asks the
// reference server the same, so that its baseline replays the answer the client would get.
import { createServer } from 'node:http';

const PROBE_TIMEOUT_MS = 5000;

/** The `Accept-Encoding` of the SDK's first snapshot request ('' when it sends none). */
export async function probeSdkAcceptEncoding(sdk) {
  let heard;
  const request = new Promise((resolve) => (heard = resolve));
  const server = createServer((req, res) => {
    heard(req.headers['accept-encoding'] ?? '');
    res.writeHead(503, { 'retry-after': '60' });
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = sdk.createClient({ sdkKey: 'svc_sdk_client_bench_probe', baseUrl: `http://127.0.0.1:${server.address().port}`, events: false, onError: () => {} });
  let timer;
  try {
    return await Promise.race([request, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the SDK sent no snapshot request')), PROBE_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
