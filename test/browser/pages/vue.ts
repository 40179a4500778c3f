/**
 * The Vue page: createFlagsPlugin with the kit's options, and two single-file components
 * (compiled with vue/compiler-sfc), each reading one flag with useFlag and counting its
 * renders in `fp.renders`.
 */
import { createApp } from 'vue';
import type { FlagsClient } from 'flagplane';
import { createFlagsPlugin } from 'flagplane/vue';
import { clientOptions, installProbes, recordChanges } from './lib/kit';
import VueApp from './lib/vue-app.vue';

const fp = installProbes();
fp.renders = { color: 0, size: 0 };

const expose = (client: FlagsClient) => {
  fp.client = client;
  recordChanges(fp);
  void client.ready().then((result) => (fp.readyResult = result));
};

createApp(VueApp, { renders: fp.renders, expose }).use(createFlagsPlugin(clientOptions(fp))).mount('#root');
