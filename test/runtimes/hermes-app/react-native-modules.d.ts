// The members of React Native and its community modules the example uses, as their own type
// declarations give them; the Hermes suite maps the modules to react-native-fakes.ts.
declare module 'react-native' {
  export type AppStateStatus = 'active' | 'background' | 'inactive' | 'unknown' | 'extension';
  export const AppState: {
    currentState: AppStateStatus;
    addEventListener(type: 'change', listener: (state: AppStateStatus) => void): { remove(): void };
  };
}

declare module '@react-native-async-storage/async-storage' {
  const AsyncStorage: {
    getItem(key: string): Promise<string | null>;
    setItem(key: string, value: string): Promise<void>;
    removeItem(key: string): Promise<void>;
  };
  export default AsyncStorage;
}

declare module '@react-native-community/netinfo' {
  export interface NetInfoState {
    isConnected: boolean | null;
  }
  const NetInfo: { addEventListener(listener: (state: NetInfoState) => void): () => void };
  export default NetInfo;
}
