// app/flags-provider.tsx
'use client';
import type { EvaluationContext, FlagSnapshot } from 'flagplane';
import { webSocketTransport } from 'flagplane/adapters/websocket';
import { FlagsProvider } from 'flagplane/react';

export function Flags({ bootstrap, context, anonymousId, children }: {
  bootstrap: FlagSnapshot | undefined;
  context: EvaluationContext;
  anonymousId: string;
  children: React.ReactNode;
}) {
  return (
    <FlagsProvider
      options={{
        sdkKey: process.env.NEXT_PUBLIC_FLAGS_CLIENT_KEY!, // svc_sdk_client_…
        baseUrl: process.env.NEXT_PUBLIC_FLAGS_URL!,
        streamUrl: process.env.NEXT_PUBLIC_FLAGS_URL!, // publishes reach the page at once
        streamTransport: webSocketTransport,
        bootstrap,
        // No bootstrap (the server's client has no snapshot yet): no cached copy either, or hydration would mismatch.
        persist: bootstrap !== undefined,
        context,
        anonymousId,
        onError: (error) => console.warn('[flags]', error.code, error.message),
      }}
    >
      {children}
    </FlagsProvider>
  );
}
