export { mountDevtools } from './mount';
export type { Devtools, DevtoolsOptions } from './mount';
