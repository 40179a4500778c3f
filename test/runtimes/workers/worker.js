import { forContext } from 'flagplane';
import { freshFlags } from './flags.js';

export default {
  async fetch(request, env, ctx) {
    const flags = await freshFlags(env, ctx);
    const url = new URL(request.url);
    const view = forContext(flags, {
      userId: url.searchParams.get('user') ?? 'anonymous',
      attributes: { plan: url.searchParams.get('plan') ?? 'free' },
    });
    const pageSize = view.get('search-page-size', 10);
    // This request's evaluation events go out after the response.
    ctx.waitUntil(flags.flush());
    return Response.json({ pageSize, version: flags.getStatus().version });
  },
};
