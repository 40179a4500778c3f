import type { Check, CheckContext } from './check-types';
import { describeResponse, expectErrorBody, expectStatus, fail } from './expect';
import { jsonOf } from './http-probe';
import { SDK_ROUTES } from './rules';

/** POST /sdk/v1/events with the key; a JSON body unless `contentType` says otherwise. */
const postEvents = (context: CheckContext, body: string, contentType = 'application/json') =>
  context.request(SDK_ROUTES.events, {
    method: 'POST',
    headers: { authorization: `Bearer ${context.target.key}`, 'content-type': contentType },
    body,
  });

const batch = (events: unknown[]) => JSON.stringify({ sentAt: new Date().toISOString(), events });

export const eventChecks: Check[] = [
  {
    id: 'events.202',
    section: '§4',
    // An empty batch is valid and stores nothing: the read-only run leaves no events behind.
    title: 'a valid batch (empty, so nothing is stored) answers 202 { accepted: 0 }',
    async run(context) {
      const response = await postEvents(context, batch([]));
      expectStatus(response, 202, 'an empty batch');
      const body = jsonOf(response) as { accepted?: unknown } | undefined;
      if (body?.accepted !== 0) fail(`an empty batch: ${describeResponse(response)}`);
    },
  },
  {
    id: 'events.invalid-batch',
    section: '§4, §5',
    title: 'an event missing a member is a 400 invalid_batch whose path names it',
    async run(context) {
      const response = await postEvents(context, batch([{ type: 'unregistered_flag' }]));
      expectErrorBody(response, 400, 'invalid_batch', 'an unregistered_flag event without key', 'events[0].key');
    },
  },
  {
    id: 'events.invalid-json',
    section: '§4, §5',
    title: 'a body that is not JSON is a 400 invalid_json',
    async run(context) {
      expectErrorBody(await postEvents(context, '{"sentAt":'), 400, 'invalid_json', 'a truncated JSON body');
    },
  },
  {
    id: 'events.415',
    section: '§4, §5',
    title: 'a body sent as another Content-Type is a 415 unsupported_media_type',
    async run(context) {
      expectErrorBody(await postEvents(context, batch([]), 'text/plain'), 415, 'unsupported_media_type', 'Content-Type: text/plain');
    },
  },
];
