import type { Activity } from './client-state';
import { browserOnline, browserVisibility, type OnlineSource, type VisibilitySource } from './platform/index';
import { stopAll } from './platform/listen';

export interface ActivityOptions {
  pauseWhenHidden?: boolean;
  pauseWhenOffline?: boolean;
  visibilitySource?: VisibilitySource;
  onlineSource?: OnlineSource;
}

/** Watches visibility and connectivity; offline wins over hidden. */
export function watchActivity(options: ActivityOptions, onChange: () => void) {
  const visibility = options.visibilitySource ?? browserVisibility();
  const online = options.onlineSource ?? browserOnline();
  return {
    current: (): Activity =>
      options.pauseWhenOffline !== false && !online.isOnline()
        ? 'offline'
        : options.pauseWhenHidden !== false && !visibility.isVisible()
          ? 'hidden'
          : 'active',
    stop: stopAll(visibility.subscribe(onChange), online.subscribe(onChange)),
  };
}
