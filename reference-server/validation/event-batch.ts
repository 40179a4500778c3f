import type { JsonValue } from '../../src/snapshot/snapshot-types';
import type { StoredTraits } from '../stores/records';
import { isRecord } from '../../src/shared/guards';
import { isNonNegativeInteger } from './numbers';

/** Limits of protocol.md §9. */
export const EVENT_LIMITS = {
  bodyBytes: 262_144,
  eventsPerBatch: 500,
  key: 256,
  userId: 256,
  reason: 64,
  message: 2048,
  traits: 100,
  sentAt: 64,
  /** Nesting of one event, itself included: deeper values could not be listed back (JSON.stringify would overflow). */
  depth: 100,
} as const;

export type DiagnosticEvent =
  | { type: 'evaluation'; key: string; reason: string; value: JsonValue; userId?: string }
  | { type: 'unregistered_flag'; key: string }
  | { type: 'error'; message: string }
  | { type: 'version_skew'; previousVersion: number; currentVersion: number }
  | { type: 'identify'; userId: string; traits: StoredTraits };

export type EventType = DiagnosticEvent['type'];

export interface EventBatch {
  sentAt: string;
  events: DiagnosticEvent[];
}

export type BatchCheck = { ok: true; batch: EventBatch } | { ok: false; message: string; path?: string };

/** Returns a problem ("must be …") or `undefined` when the member is fine. */
type MemberCheck = (value: unknown) => string | undefined;
interface MemberRule {
  required: boolean;
  check: MemberCheck;
}

const text =
  (max: number): MemberCheck =>
  (value) =>
    typeof value === 'string' && value.length >= 1 && value.length <= max
      ? undefined
      : `must be a string of 1 to ${max} characters`;

const anyJson: MemberCheck = () => undefined;

const version: MemberCheck = (value) =>
  isNonNegativeInteger(value) ? undefined : 'must be a non-negative integer';

const traits: MemberCheck = (value) => {
  if (!isRecord(value)) return 'must be a JSON object';
  return Object.keys(value).length <= EVENT_LIMITS.traits ? undefined : `must have at most ${EVENT_LIMITS.traits} members`;
};

const required = (check: MemberCheck): MemberRule => ({ required: true, check });
const optional = (check: MemberCheck): MemberRule => ({ required: false, check });

const MEMBER_RULES: Readonly<Record<EventType, Readonly<Record<string, MemberRule>>>> = {
  evaluation: {
    key: required(text(EVENT_LIMITS.key)),
    reason: required(text(EVENT_LIMITS.reason)),
    value: required(anyJson),
    // A context with neither a userId nor an anonymous id has nothing to send here.
    userId: optional(text(EVENT_LIMITS.userId)),
  },
  unregistered_flag: { key: required(text(EVENT_LIMITS.key)) },
  error: { message: required(text(EVENT_LIMITS.message)) },
  version_skew: { previousVersion: required(version), currentVersion: required(version) },
  identify: { userId: required(text(EVENT_LIMITS.userId)), traits: required(traits) },
};

export const EVENT_TYPES = Object.keys(MEMBER_RULES) as EventType[];

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/;

/** `YYYY-MM-DDTHH:MM:SS[.fraction]Z` naming a real instant (no 30 February, no hour 24). */
export function isIsoUtcTimestamp(value: string): boolean {
  const match = ISO_UTC.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** How deep `value` nests, counted without recursion: a body may nest far deeper than the stack. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

function checkEvent(event: unknown, at: string): { path: string; message: string } | undefined {
  if (!isRecord(event)) return { path: at, message: `${at} must be a JSON object` };
  if (depthOf(event) > EVENT_LIMITS.depth) return { path: at, message: `${at} must nest at most ${EVENT_LIMITS.depth} levels deep` };
  const { type } = event;
  if (typeof type !== 'string') return { path: `${at}.type`, message: `${at}.type must be a string` };
  // An own-property check: `toString` or `__proto__` must not find Object.prototype members.
  const rules = Object.hasOwn(MEMBER_RULES, type) ? MEMBER_RULES[type as EventType] : undefined;
  if (!rules) {
    return { path: `${at}.type`, message: `${at}.type "${type.slice(0, 64)}" is not one of ${EVENT_TYPES.join(', ')}` };
  }
  for (const [member, rule] of Object.entries(rules)) {
    const path = `${at}.${member}`;
    if (!Object.hasOwn(event, member)) {
      if (rule.required) return { path, message: `${path} is required for ${type} events` };
      continue;
    }
    const problem = rule.check(event[member]);
    if (problem) return { path, message: `${path} ${problem}` };
  }
  return undefined;
}

/**
 * Validates a parsed events body (protocol.md §4 and §9). On failure, `path`
 * names the first offending member, e.g. `events[3].key`. Unknown extra members are kept.
 */
export function validateEventBatch(body: unknown): BatchCheck {
  if (!isRecord(body)) return { ok: false, message: 'the batch must be a JSON object { sentAt, events }' };
  const { sentAt, events } = body;
  if (typeof sentAt !== 'string' || sentAt.length > EVENT_LIMITS.sentAt || !isIsoUtcTimestamp(sentAt)) {
    return { ok: false, path: 'sentAt', message: 'sentAt must be an ISO 8601 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fraction]Z)' };
  }
  if (!Array.isArray(events)) return { ok: false, path: 'events', message: 'events must be an array' };
  if (events.length > EVENT_LIMITS.eventsPerBatch) {
    return { ok: false, path: 'events', message: `events must hold at most ${EVENT_LIMITS.eventsPerBatch} events` };
  }
  for (let i = 0; i < events.length; i++) {
    const fault = checkEvent(events[i], `events[${i}]`);
    if (fault) return { ok: false, ...fault };
  }
  return { ok: true, batch: { sentAt, events: events as DiagnosticEvent[] } };
}
