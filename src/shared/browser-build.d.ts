/**
 * Defined as `true` by the package's browser build alone (`dist/browser/`, which
 * package.json's `browser` condition selects); undefined everywhere else: the default build,
 * the sources under test. Code that browsers never run — a check for what only another
 * runtime lacks, a workaround for another runtime's fetch — is guarded by
 * `typeof __FLAGPLANE_BROWSER__ == 'undefined'`, which the browser build folds to `false`
 * and drops, and which is a plain check wherever the define is missing.
 */
declare const __FLAGPLANE_BROWSER__: true | undefined;
