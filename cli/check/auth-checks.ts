import type { Check } from './check-types';
import { expectErrorBody, expectHeader } from './expect';
import { SDK_ROUTES, UNKNOWN_KEY } from './rules';

const unknownKey = { authorization: `Bearer ${UNKNOWN_KEY}` };

export const authChecks: Check[] = [
  {
    id: 'auth.401',
    section: '§1, §5',
    title: 'an unknown key gets 401 unauthorized in the error shape, with WWW-Authenticate: Bearer',
    async run(context) {
      const response = await context.request(SDK_ROUTES.snapshot, { headers: unknownKey });
      expectErrorBody(response, 401, 'unauthorized', 'the snapshot with an unknown key');
      expectHeader(response, 'www-authenticate', /^Bearer\b/i, 'the 401');
    },
  },
  {
    id: 'auth.401-every-route',
    section: '§1',
    title: 'every route refuses an unknown key, and a request without one, with 401 unauthorized',
    async run(context) {
      const events = JSON.stringify({ sentAt: new Date().toISOString(), events: [] });
      const refused = [
        [SDK_ROUTES.events, { method: 'POST', headers: { ...unknownKey, 'content-type': 'application/json' }, body: events }, 'the events route with an unknown key'],
        [`${SDK_ROUTES.identity}?userId=flagplane-check`, { headers: unknownKey }, 'the identity route with an unknown key'],
        [SDK_ROUTES.snapshot, {}, 'the snapshot without Authorization'],
      ] as const;
      for (const [path, init, what] of refused) expectErrorBody(await context.request(path, init), 401, 'unauthorized', what);
    },
  },
];
