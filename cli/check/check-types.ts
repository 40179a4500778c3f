import type { ProbeRequest, ProbeResponse } from './http-probe';

/** What the checks run against, from the command line. */
export interface CheckTarget {
  baseUrl: URL;
  key: string;
  /** With it, the stream checks run (§6). */
  streamUrl?: string;
  /** With it, the admin checks run (§7): they publish and revoke on the target. */
  adminToken?: string;
  /** The admin checks' environment; by default the one the key's snapshot names. */
  environment?: string;
  timeoutMs: number;
}

/** The snapshot the key reads, as the checks that depend on it need it. */
export interface HeldSnapshot {
  version: number;
  environmentId: string;
  body: Record<string, unknown>;
}

export interface CheckContext {
  target: CheckTarget;
  /** A request to a path of the base URL, within the timeout. */
  request(path: string, init?: ProbeRequest): Promise<ProbeResponse>;
  /** The key's current snapshot, fetched once and shared; rejects when it cannot be read. */
  snapshot(): Promise<HeldSnapshot>;
  /** Run after the last check: the admin checks revoke their throwaway key there if a check stopped early. */
  onFinish(cleanup: () => Promise<void>): void;
}

export interface Check {
  id: string;
  /** Where protocol.md states the rule, e.g. "§3". */
  section: string;
  /** What is checked, in a line. */
  title: string;
  run(context: CheckContext): Promise<void>;
}

export interface CheckResult {
  id: string;
  section: string;
  title: string;
  ok: boolean;
  /** What came back, when the check failed. */
  got?: string;
}
