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
        // The server renders from its own client, which may be a version behind what this browser
        // saw last: a cached newer copy would differ from the HTML. The page fetches on its own.
        persist: false,
        context,
        anonymousId,
        onError: (error) => console.warn('[flags]', error.code, error.message),
      }}
    >
      {children}
    </FlagsProvider>
  );
}
