import type { ReferenceServer } from '../../reference-server/index';
import { createSseReader, type FeedEvent } from '../../reference-server/console/sse-reader';

/** An open admin change feed read with fetch, every event kept, so a test can await the next. */
export interface FeedClient {
  readonly status: number;
  /** The answer, its body unread when it is not the feed (a 401, a 503). */
  readonly response: Response;
  readonly events: FeedEvent[];
  /** Bytes of the body received so far. */
  readonly bytes: () => number;
  /** The next event of this name not yet taken (others are skipped), parsed. */
  next(name: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves when the server ended the body. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openFeed(server: ReferenceServer, token = server.adminToken): Promise<FeedClient> {
  const controller = new AbortController();
  const response = await fetch(`${server.baseUrl}/admin/v1/changes`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const events: FeedEvent[] = [];
  let bytes = 0;
  let cursor = 0;
  let wake = () => undefined as void;
  const sse = createSseReader((event) => {
    events.push(event);
    wake();
  });
  let ended = Promise.resolve();
  if (response.ok && response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          bytes += value.length;
          sse.push(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Aborted by close().
      } finally {
        wake();
      }
    })();
  }
  return {
    status: response.status,
    response,
    events,
    bytes: () => bytes,
    ended,
    close: () => controller.abort(),
    async next(name, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < events.length) {
          const event = events[cursor++]!;
          if (event.event === name) return JSON.parse(event.data) as Record<string, unknown>;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${name} event; got ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}
