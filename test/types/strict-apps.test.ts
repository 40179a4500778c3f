/**
 * The package's declarations in strict apps (issue 23): sample apps compiled by the TypeScript
 * compiler against the built `.d.ts` files as npm ships them, under each module resolution an
 * app may use, with `strict` and `exactOptionalPropertyTypes`. `skipLibCheck`, as apps have it:
 * checking React's and Node's own declarations four times would take most of 20 s. dist/ is
 * built first where it is missing or stale (test/helpers/built-dist.ts).
 */
import { describeApps } from './compile-apps';
import { SAMPLE_APPS } from './sample-apps';

describeApps('the declarations in strict apps', SAMPLE_APPS);
