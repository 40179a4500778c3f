import { isString } from '../shared/guards';
import { checkSnapshot } from '../snapshot/snapshot-parse';
import type { FlagSnapshot } from '../snapshot/snapshot-types';

/** What one tab shares with the others: an accepted snapshot and its ETag. */
export interface TabSyncMessage {
  snapshot: FlagSnapshot;
  etag: string | null;
}

/** A cross-tab channel for snapshots. */
export interface TabSync {
  /**
   * Sends `message` (structured-cloned as given) to every other tab on the channel, never
   * to this one. A no-op after {@link TabSync.close}.
   */
  publish(message: TabSyncMessage): void;
  /** Stops sending and receiving. Idempotent. */
  close(): void;
}

/**
 * Shares snapshots between tabs over a `BroadcastChannel` named `channelName`; returns
 * `null` where `BroadcastChannel` is missing.
 *
 * Incoming messages are checked with `checkSnapshot` (and the ETag must be a string or
 * `null`); anything else — say from a tab running an older or newer SDK — is ignored
 * silently. A valid message is only *offered*: `onSnapshot` must pass it through the
 * client's normal acceptance path, which rejects an older version or another environment.
 * `onSnapshot` must not throw: it runs in a message event with no caller to catch.
 */
export function createTabSync(channelName: string, onSnapshot: (message: TabSyncMessage) => void): TabSync | null {
  const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
  if (!Channel) return null;
  // Dropped on close: postMessage on a closed channel throws.
  let channel: BroadcastChannel | undefined = new Channel(channelName);
  // Node (server rendering, tests) keeps the process alive while a channel is open.
  if (typeof __FLAGPLANE_BROWSER__ == 'undefined') (channel as { unref?: () => void }).unref?.();
  channel.onmessage = (event: MessageEvent) => {
    // Object() turns null, undefined and primitives into something safe to destructure.
    const { snapshot, etag } = Object(event.data) as Record<string, unknown>;
    const checked = checkSnapshot(snapshot, 'tab');
    if (checked.kind === 'ok' && (etag === null || isString(etag))) onSnapshot({ snapshot: checked.snapshot, etag });
  };
  return {
    publish(message) {
      try {
        channel?.postMessage(message);
      } catch {
        // Not shared (a channel the browser closed, a snapshot it cannot clone): the other
        // tabs fetch it themselves, and this tab's update must not stop on it.
      }
    },
    close() {
      channel?.close();
      channel = undefined;
    },
  };
}
