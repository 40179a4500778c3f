import { randomUUID } from 'node:crypto';
import type { Check, CheckContext } from './check-types';
import { describeResponse, expectErrorBody, expectHeader, expectStatus, fail, isRecord } from './expect';
import { jsonOf } from './http-probe';
import { SDK_ROUTES } from './rules';

const getIdentity = (context: CheckContext, query: string) =>
  context.request(`${SDK_ROUTES.identity}${query}`, { headers: { authorization: `Bearer ${context.target.key}` } });

export const identityChecks: Check[] = [
  {
    id: 'identity.200',
    section: '§4',
    title: 'an unknown user gets 200 { userId, traits: {} } with Cache-Control: no-store',
    async run(context) {
      const userId = `flagplane-check-${randomUUID()}`;
      const response = await getIdentity(context, `?userId=${userId}`);
      expectStatus(response, 200, 'the identity of an unknown user');
      const body = jsonOf(response);
      const empty = isRecord(body) && body.userId === userId && isRecord(body.traits) && Object.keys(body.traits).length === 0;
      if (!empty) fail(`expected { userId: "${userId}", traits: {} }, got ${describeResponse(response)}`);
      expectHeader(response, 'cache-control', 'no-store', 'the identity');
    },
  },
  {
    id: 'identity.missing-user',
    section: '§4, §5',
    title: 'a missing or empty userId is a 400 invalid_request with path userId',
    async run(context) {
      expectErrorBody(await getIdentity(context, ''), 400, 'invalid_request', 'no userId', 'userId');
      expectErrorBody(await getIdentity(context, '?userId='), 400, 'invalid_request', 'an empty userId', 'userId');
    },
  },
];
