import type { Check } from './check-types';
import { expectErrorBody, expectHeader } from './expect';
import { SDK_ROUTES } from './rules';

export const routeErrorChecks: Check[] = [
  {
    id: 'errors.404',
    section: '§5',
    title: 'an unknown /sdk/v1/ route is a 404 not_found',
    async run(context) {
      const response = await context.request('/sdk/v1/flagplane-check-no-such-route', { headers: { authorization: `Bearer ${context.target.key}` } });
      expectErrorBody(response, 404, 'not_found', 'an unknown route');
    },
  },
  {
    id: 'errors.405',
    section: '§5',
    title: 'a known route with another method is a 405 method_not_allowed listing the methods in Allow',
    async run(context) {
      const response = await context.request(SDK_ROUTES.snapshot, { method: 'DELETE', headers: { authorization: `Bearer ${context.target.key}` } });
      expectErrorBody(response, 405, 'method_not_allowed', 'DELETE /sdk/v1/snapshot');
      expectHeader(response, 'allow', /\bGET\b/, 'the 405');
    },
  },
];
