/** The change feed's state in the header: live, connecting, or reconnecting after a drop. */
import type { FeedConnection } from './change-feed';

const LABELS: Record<FeedConnection, string> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' };

export function FeedBadge({ connection, failing }: { connection: FeedConnection; failing: boolean }) {
  const tone = connection !== 'live' ? 'live-waiting' : failing ? 'live-failing' : '';
  return (
    <span
      className={`live ${tone}`}
      data-testid="feed-state"
      data-connection={connection}
      title="changes arrive over the admin change feed (GET /admin/v1/changes); nothing is polled"
    >
      {connection === 'live' && failing ? 'live · a read failed' : LABELS[connection]}
    </span>
  );
}
