import type { FlagsClient, ReadyResult } from 'flagplane';

/** One `onError` call, as the page recorded it (also appended to `sessionStorage['fp:errors']`). */
export interface RecordedError {
  /** The page's `tag` parameter, so a later page can tell whose error it was. */
  tag: string;
  name: string;
  code: string;
  message: string;
  /** `HttpError.status` */
  status?: number;
  /** `StreamError.closeCode` */
  closeCode?: number | null;
  /** Wall clock: `performance.timeOrigin + performance.now()`. */
  at: number;
}

/** One `subscribe` notification. */
export interface RecordedChange {
  changed: string[];
  version: number | null;
  source: string | null;
  connection: string;
  /** Wall clock when the listener ran: `performance.timeOrigin + performance.now()`. */
  at: number;
}

/** One page lifecycle event (`pagehide`, `visibilitychange`, `beforeunload`, `freeze`). */
export interface LifecycleEntry {
  tag: string;
  type: string;
  detail: string;
  at: number;
}

/** The test API every SDK page puts on `window.fp`. */
export interface PageApi {
  /** The page's query parameters. */
  params: Record<string, string>;
  tag: string;
  /** Set once the client exists (the React page sets it from an effect). */
  client: FlagsClient | null;
  errors: RecordedError[];
  changes: RecordedChange[];
  /** What `ready()` resolved to, once it did. */
  readyResult: ReadyResult | null;
  /** `get(read)` and the status right after `createClient`, before any await. */
  firstRead: { key: string; value: unknown; source: string | null; version: number | null; status: string } | null;
  /** Render counts per component (React page). */
  renders: Record<string, number>;
  /**
   * Emulates the page becoming hidden or visible: headless Chromium never hides a page, so
   * `document.visibilityState` is overridden and `visibilitychange` dispatched by hand.
   */
  setVisibility(state: 'hidden' | 'visible'): void;
  /** The flagplane entries of the page's storage (`localStorage`, or the IndexedDB store). */
  storageDump(): Promise<Record<string, string>>;
}

/** What /other.html finds in storage after a navigation or a tab close. */
export interface OtherPageApi {
  /** `sessionStorage['fp:errors']`: what the previous page of this tab reported. */
  errors: RecordedError[];
  /** `localStorage['fp:lifecycle']`: lifecycle events of every page of the origin. */
  lifecycle: LifecycleEntry[];
}

declare global {
  interface Window {
    fp: PageApi;
    other: OtherPageApi;
  }
}
