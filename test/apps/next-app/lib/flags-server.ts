// lib/flags-server.ts — server only: the process's client, made once
import { createClient } from 'flagplane';

export const flags = createClient({
  sdkKey: process.env.FLAGS_SERVER_KEY!, // svc_sdk_server_…
  baseUrl: process.env.FLAGS_URL!,
});
