/**
 * The server side of the hand-off, as docs/svelte.md describes it: one client per process
 * (the server key), and per request a page client made from `browserBootstrap(flags)` for the
 * visitor's context, rendered with `svelte/server` and closed. Bundled with Svelte's server
 * build by ssr.test.ts, as a server bundles it.
 */
import { render } from 'svelte/server';
import { browserBootstrap, createClient, type EvaluationContext, type FlagSnapshot, type HttpTransport } from 'flagplane';
import Page from '../components/Page.svelte';

const baseUrl = 'https://flags.test';

export function createServer({ snapshot, transport }: { snapshot: FlagSnapshot; transport: HttpTransport }) {
  // In an app: the server key and the data plane; here the snapshot it would be served.
  const flags = createClient({ sdkKey: 'svc_sdk_server_test_key_0001', baseUrl, transport, bootstrap: snapshot, events: false, persist: false });
  return {
    async renderPage(context: EvaluationContext) {
      await flags.ready();
      const bootstrap = browserBootstrap(flags);
      // The browser's client, on the server: the same snapshot and context, nothing kept.
      const client = createClient({ sdkKey: 'svc_sdk_client_test_key_0001', baseUrl, transport, bootstrap, context, events: false, persist: false });
      try {
        const { body } = render(Page, { props: { client } });
        return { body, bootstrap };
      } finally {
        void client.close();
      }
    },
    close: () => flags.close(),
  };
}
