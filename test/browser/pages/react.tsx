/**
 * FlagsProvider with two components, each reading one flag with useFlag and counting its
 * renders in `fp.renders` (production React: no StrictMode double render).
 */
import { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { FlagsProvider, useFlag, useFlagsClient } from 'flagplane/react';
import { clientOptions, installProbes, recordChanges } from './lib/kit';

const fp = installProbes();
fp.renders = { color: 0, size: 0 };
// One options object for the page's life: the provider reads it once.
const options = clientOptions(fp);

function Color() {
  fp.renders.color!++;
  const color = useFlag('checkout-button-color', 'none');
  return <p id="color">{color}</p>;
}

function Size() {
  fp.renders.size!++;
  const size = useFlag('search-page-size', 0);
  return <p id="size">{size}</p>;
}

function Expose() {
  const client = useFlagsClient();
  useEffect(() => {
    fp.client = client;
    recordChanges(fp);
    void client.ready().then((result) => (fp.readyResult = result));
  }, [client]);
  return null;
}

createRoot(document.getElementById('root')!).render(
  <FlagsProvider options={options}>
    <Expose />
    <Color />
    <Size />
  </FlagsProvider>,
);
