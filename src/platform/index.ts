export { browserVisibility, onPageHide } from './visibility';
export type { VisibilitySource } from './visibility';
export { browserOnline } from './online';
export type { OnlineSource } from './online';
export { createTabSync } from './tab-sync';
export type { TabSync, TabSyncMessage } from './tab-sync';
export { watchPageExit } from './page-exit';
