export { FlagplaneWebProvider } from './web-provider';
export { FlagplaneServerProvider } from './server-provider';
export { toFlagplaneContext } from './context';
export type { ClientSource } from './provider-base';
