/**
 * The flagplane console: the reference server serves this bundle at GET / (with
 * `consoleDir`; `npm start` passes the build's dist/console/). Local development only.
 */
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { injectStyles } from './styles';

injectStyles();
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
createRoot(root).render(<App />);
