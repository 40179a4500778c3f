import { build } from 'esbuild';
import { createServer } from 'node:http';
import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelteEsbuild } from '../helpers/svelte-compile';
import { closeServer, listenOnLoopback } from './net';
import { vueSfc } from './vue-sfc';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const PAGES = join(HERE, 'pages');

/**
 * The package names a page imports, as an app would, mapped to the current sources: the
 * suite needs no `npm run build` and always tests what is in the tree.
 */
export const PACKAGE_ALIASES: Readonly<Record<string, string>> = {
  flagplane: join(ROOT, 'src', 'index.ts'),
  'flagplane/react': join(ROOT, 'react', 'index.ts'),
  'flagplane/vue': join(ROOT, 'vue', 'index.ts'),
  'flagplane/devtools': join(ROOT, 'devtools', 'index.ts'),
  'flagplane/svelte': join(ROOT, 'svelte', 'index.ts'),
  'flagplane/stream': join(ROOT, 'src', 'stream', 'index.ts'),
  ...Object.fromEntries(
    ['websocket', 'indexeddb', 'local-storage', 'memory'].map((name) => [`flagplane/adapters/${name}`, join(ROOT, 'adapters', `${name}.ts`)]),
  ),
};

/** Page name (`client` for pages/client.ts) → its bundle. */
export type PageBundles = ReadonlyMap<string, string>;

let bundles: Promise<PageBundles> | undefined;

/**
 * Bundles every page of pages/ (each file directly in it is one page; lib/ holds what they
 * share) once per test file's process: ESM for the browser, React and Vue in production mode,
 * Vue's single-file components compiled by vue/compiler-sfc.
 */
export function bundlePages(): Promise<PageBundles> {
  bundles ??= (async () => {
    const entries = readdirSync(PAGES).filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'));
    const result = await build({
      entryPoints: entries.map((file) => join(PAGES, file)),
      outdir: '/pages',
      write: false,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      jsx: 'automatic',
      alias: { ...PACKAGE_ALIASES },
      // The package's browser build (its `browser` condition), as a bundler picks it.
      // Vue's bundler build asks the bundler for its compile-time flags, as Vite sets them.
      define: {
        'process.env.NODE_ENV': '"production"',
        __FLAGPLANE_BROWSER__: 'true',
        __VUE_OPTIONS_API__: 'true',
        __VUE_PROD_DEVTOOLS__: 'false',
        __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
      },
      // The Vue page's single-file components, and the Svelte page's components
      // (pages/lib/svelte/), each compiled for the browser by its framework's compiler.
      plugins: [vueSfc, svelteEsbuild('client')],
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    return new Map(result.outputFiles.map((file) => [basename(file.path, extname(file.path)), file.text]));
  })();
  return bundles;
}

const html = (name: string) => `<!doctype html>
<html>
<head><meta charset="utf-8"><title>${name}</title></head>
<body>
<a id="leave" href="/other.html">to another page</a>
<div id="root"></div>
<script type="module" src="/${name}.js"></script>
</body>
</html>
`;

export interface PageServer {
  /** `http://127.0.0.1:<port>`: another origin than the API's. */
  readonly origin: string;
  readonly port: number;
  /** Every path requested, in order. */
  readonly served: string[];
  close(): Promise<void>;
}

/** Serves `/<page>.html` and `/<page>.js` for every bundled page, with `no-store`. */
export async function startPageServer(): Promise<PageServer> {
  const pages = await bundlePages();
  const served: string[] = [];
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://page.test');
    served.push(pathname);
    const match = /^\/([\w-]+)\.(html|js)$/.exec(pathname);
    const bundle = match && pages.get(match[1]!);
    if (!match || bundle === undefined) {
      res.writeHead(pathname === '/favicon.ico' ? 204 : 404, { 'cache-control': 'no-store' }).end();
      return;
    }
    const [body, type] = match[2] === 'html' ? [html(match[1]!), 'text/html'] : [bundle, 'text/javascript'];
    res.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' }).end(body);
  });
  const port = await listenOnLoopback(server);
  return { origin: `http://127.0.0.1:${port}`, port, served, close: () => closeServer(server) };
}
