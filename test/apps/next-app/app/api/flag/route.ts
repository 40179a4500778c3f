// app/api/flag/route.ts — an edge route handler: a client per request, closed before it ends
import { createClient, forContext } from 'flagplane';

export const runtime = 'edge';

export async function GET(request: Request) {
  const flags = createClient({ sdkKey: process.env.FLAGS_SERVER_KEY!, baseUrl: process.env.FLAGS_URL!, events: false, persist: false });
  try {
    await flags.ready();
    const country = new URL(request.url).searchParams.get('country') ?? 'unknown';
    return Response.json({ provider: forContext(flags, { attributes: { country } }).get('payments-provider', 'stripe') });
  } finally {
    await flags.close();
  }
}
