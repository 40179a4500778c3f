import { createClient } from 'flagplane';
import { webSocketTransport } from 'flagplane/adapters/websocket';
import worker from './worker.js';
import { freshFlags } from './flags.js';

/** A client with the stream, opened by one request and closed by a later one. */
let streaming;

/** What the client's call did: its result, or what it threw (it must not throw). */
async function outcome(call) {
  try {
    const pending = call();
    return { threw: null, result: (await pending) ?? null };
  } catch (error) {
    return { threw: String(error) };
  }
}

/**
 * The example worker (docs/runtimes.md) at `/`, and what the test asks of the isolate's
 * clients from later requests: `refresh()` (at once, or after the response) and `close()`.
 */
export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === '/') return worker.fetch(request, env, ctx);
    if (pathname === '/stream/open') {
      streaming = createClient({
        sdkKey: env.FLAGPLANE_SERVER_KEY,
        baseUrl: env.FLAGPLANE_URL,
        streamUrl: env.FLAGPLANE_STREAM_URL,
        streamTransport: webSocketTransport,
        events: false,
        onError: (error) => console.error(`flagplane: ${error.message}`),
      });
      return Response.json({ ready: await streaming.ready(), status: streaming.getStatus() });
    }
    if (pathname === '/stream/close') return Response.json(await outcome(() => streaming.close()));
    const flags = await freshFlags(env, ctx);
    if (pathname === '/refresh/later') {
      ctx.waitUntil(flags.refresh());
      return Response.json({ version: flags.getStatus().version });
    }
    if (pathname === '/refresh') return Response.json({ ...(await outcome(() => flags.refresh())), version: flags.getStatus().version });
    if (pathname === '/close') return Response.json(await outcome(() => flags.close()));
    return new Response('not found', { status: 404 });
  },
};
