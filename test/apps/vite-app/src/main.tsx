// src/main.tsx
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { webSocketTransport } from 'flagplane/adapters/websocket';
import { FlagsProvider, useFlag } from 'flagplane/react';

const options = {
  sdkKey: import.meta.env.VITE_FLAGS_CLIENT_KEY, // svc_sdk_client_…
  baseUrl: import.meta.env.VITE_FLAGS_URL,
  streamUrl: import.meta.env.VITE_FLAGS_URL,
  streamTransport: webSocketTransport,
  context: { attributes: { country: 'US' } },
};

function CheckoutButton() {
  const color = useFlag('checkout-button-color', 'blue');
  return <button id="checkout" style={{ background: color }}>{color}</button>;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <FlagsProvider options={options}>
      <CheckoutButton />
    </FlagsProvider>
  </StrictMode>,
);
