import { browserOnline, type OnlineSource } from './online';
import { browserVisibility, type VisibilitySource } from './visibility';
import { stopAll } from './listen';

/** Whether the client may poll: not while the page is hidden or the device offline. */
export type Activity = 'active' | 'hidden' | 'offline';

export interface ActivityOptions {
  pauseWhenHidden?: boolean;
  pauseWhenOffline?: boolean;
  visibilitySource?: VisibilitySource;
  onlineSource?: OnlineSource;
}

/**
 * Watches visibility and connectivity; offline wins over hidden. `onChange` hears the new
 * activity — from a source that calls back while being subscribed too, before this returns.
 */
export function watchActivity(options: ActivityOptions, onChange: (activity: Activity) => void) {
  const visibility = options.visibilitySource ?? browserVisibility();
  const online = options.onlineSource ?? browserOnline();
  const current = (): Activity =>
    options.pauseWhenOffline !== false && !online.isOnline()
      ? 'offline'
      : options.pauseWhenHidden !== false && !visibility.isVisible()
        ? 'hidden'
        : 'active';
  const changed = () => onChange(current());
  return { current, stop: stopAll(visibility.subscribe(changed), online.subscribe(changed)) };
}
