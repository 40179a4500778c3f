/** What the SDKs of one environment sent: the identify queue, analytics, diagnostics. Newest first. */
import type { ReactNode } from 'react';
import type { IdentifyRow, StoredEvent } from './api';
import { formatValue } from './flag-format';
import { Badge, Pane, timeOf } from './ui';

/** Newest first, whatever order the server lists them in (ties keep the later one first). */
function newestFirst<T extends { receivedAt: string }>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => b.item.receivedAt.localeCompare(a.item.receivedAt) || b.index - a.index)
    .map(({ item }) => item);
}

/** The members that matter for each event type, as one line. */
export function describeEvent(event: StoredEvent): string {
  switch (event.type) {
    case 'error':
      return String(event.message);
    case 'version_skew':
      return `version ${formatValue(event.previousVersion)} → ${formatValue(event.currentVersion)}`;
    case 'unregistered_flag':
      return `read of unknown flag ${formatValue(event.key)}`;
    case 'evaluation':
      return `${String(event.key)} = ${formatValue(event.value, 40)} (${String(event.reason)}) for ${String(event.userId)}`;
    default: {
      const { type: _type, environmentId: _environment, receivedAt: _received, ...rest } = event;
      return formatValue(rest, 120);
    }
  }
}

function EventList({ testId, empty, children }: { testId: string; empty: string; children: ReactNode[] }) {
  return (
    <ul className="events" data-testid={testId}>
      {children.length ? children : <li className="muted">{empty}</li>}
    </ul>
  );
}

export function EventsPane(props: { environmentId: string; identify: IdentifyRow[]; analytics: StoredEvent[]; diagnostics: StoredEvent[] }) {
  const { environmentId, identify } = props;
  const analytics = newestFirst(props.analytics.filter((event) => event.environmentId === environmentId));
  const diagnostics = newestFirst(props.diagnostics.filter((event) => event.environmentId === environmentId));
  return (
    <Pane title={`Live events · ${environmentId}`} testId="events-pane">
      <h3>Identify queue</h3>
      <EventList testId="identify-queue" empty="No identify() yet.">
        {newestFirst(identify.filter((row) => row.environmentId === environmentId)).map((row) => (
          <li key={row.id} data-testid="identify-row">
            <time>{timeOf(row.receivedAt)}</time> <strong>{row.userId}</strong> <code>{formatValue(row.traits, 100)}</code>
          </li>
        ))}
      </EventList>
      <h3>Diagnostics</h3>
      <EventList testId="diagnostic-events" empty="No errors, version skews or unknown flags reported.">
        {diagnostics.map((event, index) => (
          <li key={`${event.receivedAt}/${index}`} data-testid={`diagnostic-${event.type}`}>
            <time>{timeOf(event.receivedAt)}</time> <Badge tone={event.type === 'error' ? 'off' : 'warn'}>{event.type}</Badge> {describeEvent(event)}
          </li>
        ))}
      </EventList>
      <h3>Analytics</h3>
      <EventList testId="analytics-events" empty="No evaluations reported (production environments only).">
        {analytics.map((event, index) => (
          <li key={`${event.receivedAt}/${index}`} data-testid="analytics-event">
            <time>{timeOf(event.receivedAt)}</time> {describeEvent(event)}
          </li>
        ))}
      </EventList>
    </Pane>
  );
}
