// app/flags-first/page.tsx — a client per render (as in a route handler), awaited before anything
// of the request is read. While `next build` prerenders the page, Next ends the client's fetch to
// mark the page dynamic: ready() answers `interrupted` at once instead of waiting out readyTimeout.
import { createClient, forContext } from 'flagplane';

export default async function FlagsFirst() {
  const flags = createClient({ sdkKey: process.env.FLAGS_SERVER_KEY!, baseUrl: process.env.FLAGS_URL!, events: false, persist: false });
  try {
    await flags.ready();
    return <p id="provider">{String(forContext(flags, { attributes: { country: 'DE' } }).get('payments-provider', 'stripe'))}</p>;
  } finally {
    await flags.close();
  }
}
