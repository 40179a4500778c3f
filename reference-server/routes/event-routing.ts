import type { DiagnosticEvent } from '../validation/event-batch';
import type { AnalyticsStore, IdentifyQueueStore } from '../stores/contracts';
import type { EventLog } from '../stores/event-log';
import type { EnvironmentKind, IdentifyRow, StoredEvent } from '../stores/records';

export interface RoutedEvents {
  identify: Omit<IdentifyRow, 'id'>[];
  analytics: StoredEvent[];
  diagnostics: StoredEvent[];
}

/**
 * protocol.md §4: `identify` → the identify queue; `evaluation` in a
 * production environment → analytics; everything else, staging evaluations included → diagnostics.
 */
export function routeEvents(
  events: readonly DiagnosticEvent[],
  environment: { id: string; kind: EnvironmentKind },
  receivedAt: string,
): RoutedEvents {
  const routed: RoutedEvents = { identify: [], analytics: [], diagnostics: [] };
  for (const event of events) {
    if (event.type === 'identify') {
      routed.identify.push({ environmentId: environment.id, userId: event.userId, traits: event.traits, receivedAt });
      continue;
    }
    const stored: StoredEvent = { ...event, environmentId: environment.id, receivedAt };
    if (event.type === 'evaluation' && environment.kind === 'production') routed.analytics.push(stored);
    else routed.diagnostics.push(stored);
  }
  return routed;
}

/** Stores what {@link routeEvents} routed; resolves once the identify queue and analytics store hold it. */
export async function storeRoutedEvents(
  routed: RoutedEvents,
  stores: { identifyQueue: IdentifyQueueStore; analytics: AnalyticsStore; diagnostics: EventLog },
): Promise<void> {
  for (const event of routed.diagnostics) stores.diagnostics.append(event);
  await Promise.all([stores.identifyQueue.append(routed.identify), stores.analytics.append(routed.analytics)]);
}
