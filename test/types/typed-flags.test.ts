/**
 * Typed flags (issue 25) in strict apps: the module `flagplane types` writes, and apps typed
 * by it (typed-flag-apps.ts), compiled against the built declarations as strict-apps.test.ts
 * compiles its apps, under each module resolution: a misspelt key or a value of another
 * type fails with the error its line names, and nothing else fails.
 */
import { describeApps } from './compile-apps';
import { TYPED_FLAG_APPS } from './typed-flag-apps';

describeApps('apps typed by a flags type', TYPED_FLAG_APPS);
