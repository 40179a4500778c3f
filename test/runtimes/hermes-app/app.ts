/**
 * The Hermes suite's app: the React Native example (docs/examples/react-native/flags.ts) as it
 * is, with commands the host sends as lines of JavaScript (`__app.start(...)`), each answering
 * with one `@@{json}` line.
 */
import { bridgeTransport, send } from './native';
import { startFlags, type AppFlags } from '../../../docs/examples/react-native/flags';
import type { EvaluationContext } from '../../../src/evaluation/evaluation-types';
import { AppState, AsyncStorage, NetInfo } from './react-native-fakes';

let flags: AppFlags | undefined;

const values = () => ({
  'new-checkout': flags!.get('new-checkout', false),
  'search-page-size': flags!.get('search-page-size', 10),
  'checkout-button-color': flags!.get('checkout-button-color', 'blue'),
  connection: flags!.getStatus().connection,
});

(globalThis as Record<string, unknown>).__app = {
  start(server: { sdkKey: string; baseUrl: string }, context: EvaluationContext) {
    try {
      flags = startFlags({ ...server, transport: bridgeTransport }, context);
    } catch (error) {
      return send({ t: 'threw', name: (error as Error).name, message: (error as Error).message });
    }
    flags.subscribe(({ changed }) => send({ t: 'changed', keys: [...changed], values: values() }));
    void flags.ready().then((ready) => send({ t: 'ready', ready, values: values() }));
  },
  read: () => send({ t: 'values', values: values() }),
  background: (state: string) => AppState.set(state),
  network: (connected: boolean) => NetInfo.set(connected),
  close: () => void flags!.close().then(() => send({ t: 'closed', stored: AsyncStorage.keys() })),
};
send({ t: 'loaded' });
