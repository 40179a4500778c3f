/**
 * FlagsProvider with two components, each reading one flag with useFlag and counting its
 * renders in `fp.renders` (production React: no StrictMode double render).
 */
import { createRoot } from 'react-dom/client';
import { FlagsProvider, useFlag } from 'flagplane/react';
import { ExposeClient } from './lib/expose-client';
import { clientOptions, installProbes } from './lib/kit';

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

createRoot(document.getElementById('root')!).render(
  <FlagsProvider options={options}>
    <ExposeClient fp={fp} />
    <Color />
    <Size />
  </FlagsProvider>,
);
