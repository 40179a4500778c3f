import type { Check } from './check-types';
import { expectHeader, expectStatus, fail, listsToken } from './expect';
import { PREFLIGHT_HEADERS, SDK_ROUTES, UNKNOWN_KEY } from './rules';

const ORIGIN = 'https://app.example';

export const corsChecks: Check[] = [
  {
    id: 'cors.preflight',
    section: '§10',
    title: 'OPTIONS on each route, without a key, answers 204 with the allowed methods, headers and max age',
    async run(context) {
      for (const route of [SDK_ROUTES.snapshot, SDK_ROUTES.events, SDK_ROUTES.identity]) {
        const response = await context.request(route, {
          method: 'OPTIONS',
          headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
        });
        expectStatus(response, 204, `OPTIONS ${route}`);
        for (const [name, value] of Object.entries(PREFLIGHT_HEADERS)) expectHeader(response, name, value, `OPTIONS ${route}`);
      }
    },
  },
  {
    id: 'cors.response-headers',
    section: '§10',
    title: 'answers carry Access-Control-Allow-Origin: * and expose ETag, a 401 too',
    async run(context) {
      const answers = [
        [await context.request(SDK_ROUTES.snapshot, { headers: { origin: ORIGIN, authorization: `Bearer ${context.target.key}` } }), 'the snapshot'],
        [await context.request(SDK_ROUTES.snapshot, { headers: { origin: ORIGIN, authorization: `Bearer ${UNKNOWN_KEY}` } }), 'the 401'],
      ] as const;
      for (const [response, what] of answers) {
        expectHeader(response, 'access-control-allow-origin', '*', what);
        if (!listsToken(response, 'access-control-expose-headers', 'ETag')) {
          fail(`${what}: Access-Control-Expose-Headers ${JSON.stringify(response.headers['access-control-expose-headers'] ?? null)}`);
        }
      }
    },
  },
];
