import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RouteError } from '../http/responses';
import type { Route } from '../http/router';

/** The console's page: its script does the rest (reference-server/console/). */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<title>flagplane console</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="root"></div>
<script type="module" src="/console/console.js"></script>
</body>
</html>
`;

const HTML = 'text/html; charset=utf-8';
const SCRIPT = 'text/javascript; charset=utf-8';

/**
 * `GET /`, the console page, and `GET /console/console.js`, its script, read from
 * `consoleDir` at each request, so a rebuild needs no restart (dist/console/ for the CLI;
 * `npm run build` writes it). A missing script is a 404 that says how to build it; the page
 * and the API work without it.
 */
export function createConsoleRoutes(consoleDir: string): Route[] {
  const readScript = () => {
    try {
      return readFileSync(join(consoleDir, 'console.js'), 'utf8');
    } catch {
      throw new RouteError(404, 'not_found', `the console is not built (no console.js in ${consoleDir}): run npm run build`);
    }
  };
  return [
    { pattern: '/', methods: { GET: () => ({ status: 200, headers: { 'Cache-Control': 'no-cache' }, file: { contentType: HTML, content: PAGE } }) } },
    {
      pattern: '/console/console.js',
      methods: { GET: () => ({ status: 200, headers: { 'Cache-Control': 'no-cache' }, file: { contentType: SCRIPT, content: readScript() } }) },
    },
  ];
}
