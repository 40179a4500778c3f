/**
 * The devtools panel over a React app: FlagsProvider with a component reading a flag with
 * useFlag, one reading a key the snapshot lacks, and `mountDevtools` from an effect, as an
 * app loading it in development would. `window.fpDevtools` counts what it leaves behind.
 */
import { createRoot } from 'react-dom/client';
import { FlagsProvider, useFlag } from 'flagplane/react';
import { countLiveTimers, installDevtools } from './lib/devtools-probe';
import { ExposeClient } from './lib/expose-client';
import { clientOptions, installProbes } from './lib/kit';

const fp = installProbes();
const liveTimers = countLiveTimers();
const options = clientOptions(fp);

function Color() {
  return <p id="color">{useFlag('checkout-button-color', 'none')}</p>;
}

function Unknown() {
  return <p id="unknown">{useFlag('not-in-the-snapshot', 'fallback')}</p>;
}

createRoot(document.getElementById('root')!).render(
  <FlagsProvider options={options}>
    {/* The probe first: its subscribe counter sees the panel's subscription. */}
    <ExposeClient fp={fp} first={(client) => (window.fpDevtools = installDevtools(client, liveTimers))} />
    <Color />
    <Unknown />
  </FlagsProvider>,
);
