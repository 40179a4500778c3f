/**
 * flagplane/svelte in the page: an app whose three components each read one flag's store and
 * count their updates in `fp.renders`; `fpSvelte.unmount()` destroys it, `fpSvelte.listeners()`
 * counts the client's listeners (the page's own change recorder is one).
 */
import { mount, unmount } from 'svelte';
import { createClient } from 'flagplane';
import { countListeners } from '../../helpers/listener-count';
import { clientOptions, installProbes, recordChanges } from './lib/kit';
import App from './lib/svelte/App.svelte';

declare global {
  interface Window {
    fpSvelte: { unmount(): void; listeners(): number };
  }
}

const fp = installProbes();
fp.renders = { color: 0, size: 0, banner: 0 };
const client = createClient(clientOptions(fp));
const listeners = countListeners(client);
fp.client = client;
recordChanges(fp);
const app = mount(App, { target: document.getElementById('root')!, props: { client, renders: fp.renders } });
window.fpSvelte = { unmount: () => void unmount(app), listeners };
