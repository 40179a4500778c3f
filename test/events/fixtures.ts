import { vi } from 'vitest';
import { validateEventBatch } from '../../reference-server/validation/event-batch';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import { createEventSender } from '../../src/events/event-sender';
import type { SendOutcome } from '../../src/http/http-client';
import type { HttpRequest } from '../../src/http/http-types';
import type { FlagplaneError } from '../../src/shared/errors';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { jsonResponse, type Reply } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

export const keys = (n: number) => Array.from({ length: n }, (_, i) => `flag-${i}`);
/** 30 flags, flag-0 … flag-29, all serving true. */
export const snapshot = snapshotOf(1, Object.fromEntries(keys(30).map((key) => [key, true])));
export const isEvents = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/events';
export const isIdentity = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/identity';
export const eventsOf = (request: HttpRequest) => (JSON.parse(request.body!) as { events: Array<Record<string, unknown>> }).events;

/**
 * A data plane (fakeDataPlane) whose events route can be held: while `hold` is on, each
 * events request waits in `held` until the test answers it. With `validate`, the events
 * route checks each batch as the reference server does (reference-server/event-batch-validation).
 */
export function controlledPlane(options: { validate?: boolean; snapshot?: FlagSnapshot }) {
  const plane = fakeDataPlane(options.snapshot ?? snapshot);
  const control = {
    plane,
    held: [] as Array<{ request: HttpRequest; answer: (reply: Reply) => void }>,
    hold: false,
    handler(request: HttpRequest): Reply | Promise<Reply> {
      if (isEvents(request)) {
        if (options.validate) {
          const check = validateEventBatch(JSON.parse(request.body!));
          if (!check.ok) return jsonResponse(400, { error: { code: 'invalid_batch', message: check.message, path: check.path } });
        }
        if (control.hold) return new Promise<Reply>((answer) => control.held.push({ request, answer }));
      }
      return plane.handler(request);
    },
  };
  return control;
}

export async function eventsClient(options: Record<string, unknown> = {}, planeOptions: { validate?: boolean; snapshot?: FlagSnapshot } = {}) {
  const control = controlledPlane(planeOptions);
  const h = harness(control.handler, { events: true, flushInterval: 0, context: { userId: 'u1' }, ...options });
  await h.client.ready();
  return { ...h, control, plane: control.plane, eventRequests: () => h.requests.filter(isEvents) };
}

/** `pagehide` on a stand-in window and `visibilitychange` on a stand-in document (this file runs in node). */
export function fakePage() {
  const win = new EventTarget();
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  vi.stubGlobal('addEventListener', win.addEventListener.bind(win));
  vi.stubGlobal('removeEventListener', win.removeEventListener.bind(win));
  vi.stubGlobal('document', doc);
  return {
    pagehide: () => win.dispatchEvent(new Event('pagehide')),
    hide: () => {
      doc.visibilityState = 'hidden';
      doc.dispatchEvent(new Event('visibilitychange'));
    },
  };
}

export const status = (code: number): SendOutcome => ({ kind: 'response', status: code, body: '', header: () => null });

/** An event sender on a scripted HTTP client and a recording scheduler. */
export function scriptedSender(answer: (body: string) => SendOutcome | Promise<SendOutcome>, sdkKey = 'key') {
  const sent: DiagnosticEvent[] = [];
  const errors: FlagplaneError[] = [];
  const sender = createEventSender({
    sdkKey,
    flushAt: 5000,
    flushInterval: 0,
    http: {
      send: async (_route, request) => {
        const outcome = await answer(request!.body!);
        if (outcome.kind === 'response' && outcome.status === 202) sent.push(...(JSON.parse(request!.body!) as { events: DiagnosticEvent[] }).events);
        return outcome;
      },
      abort: () => undefined,
    },
    scheduler: { setTimeout: () => 1, clearTimeout: () => undefined, now: () => 0, random: () => 0 },
    report: (error) => errors.push(error),
    offline: () => false,
  });
  return { sender, sent, errors };
}
