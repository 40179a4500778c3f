/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_FLAGS_URL: string;
  readonly VITE_FLAGS_CLIENT_KEY: string;
}
