// flags.ts — the whole React Native setup (docs/runtimes.md, "React Native").
import AsyncStorage from '@react-native-async-storage/async-storage';
import NetInfo from '@react-native-community/netinfo';
import { AppState } from 'react-native';
import { createClient, type EvaluationContext, type FlagsClient, type HttpTransport } from 'flagplane';
import { createAsyncStorage } from 'flagplane/adapters/async-storage';
import { webSocketTransport } from 'flagplane/adapters/websocket';

const defaults = { 'new-checkout': false, 'search-page-size': 10, 'checkout-button-color': 'blue' };
export type AppFlags = FlagsClient<typeof defaults>;

/** Polling pauses while the app is in the background and catches up when it is back. */
const appState = {
  isVisible: () => AppState.currentState === 'active',
  subscribe: (onChange: (visible: boolean) => void) => {
    const subscription = AppState.addEventListener('change', (state) => onChange(state === 'active'));
    return () => subscription.remove();
  },
};

/** No request while offline; the stream reopens when the network is back. */
function netInfo() {
  let online = true; // NetInfo reports the current state as soon as it is subscribed
  return {
    isOnline: () => online,
    subscribe: (onChange: (online: boolean) => void) =>
      NetInfo.addEventListener((state) => onChange((online = state.isConnected !== false))),
  };
}

export interface FlagsServer {
  sdkKey: string;
  baseUrl: string;
  /** Only to route requests through a native HTTP library; React Native's `fetch` by default. */
  transport?: HttpTransport;
}

export function startFlags(server: FlagsServer, context: EvaluationContext = {}): AppFlags {
  return createClient({
    ...server,
    streamUrl: server.baseUrl,
    streamTransport: webSocketTransport, // React Native has a global WebSocket
    defaults,
    context,
    cache: createAsyncStorage(AsyncStorage), // the snapshot and the anonymous id
    visibilitySource: appState,
    onlineSource: netInfo(),
    onError: (error) => console.warn(`[flags] ${error.code}: ${error.message}`),
  });
}
