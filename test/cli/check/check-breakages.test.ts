/** Each check fails, naming itself, against a data plane broken in the one way it checks (breakages.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../../reference-server/index';
import { runChecks } from '../../../cli/check/run-checks';
import { DEMO } from '../../helpers/reference-server';
import { startBreakingProxy } from './breaking-proxy';
import { BREAKAGES } from './breakages';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ port: 0 });
});

afterAll(async () => {
  await server.close();
});

/** Every check, stream and admin ones included, through a proxy that breaks `breakage`. */
async function failuresThrough(breakage: Parameters<typeof startBreakingProxy>[1]) {
  const proxy = await startBreakingProxy(server.baseUrl, breakage);
  try {
    const results = await runChecks({ baseUrl: new URL(proxy.baseUrl), key: DEMO.prodClientKey, streamUrl: proxy.wsUrl, adminToken: DEMO.adminToken, timeoutMs: 1000 });
    return results.filter((result) => !result.ok);
  } finally {
    await proxy.close();
  }
}

describe('flagplane check against a data plane broken one way at a time', () => {
  it('through the proxy with nothing broken, every check passes (the proxy itself changes nothing)', async () => {
    expect(await failuresThrough({})).toEqual([]);
  });

  it.each(BREAKAGES)('$name: fails $fails', async ({ breakage, fails, got = /\S/ }) => {
    const failures = await failuresThrough(breakage);
    expect(failures.map((failure) => failure.id)).toEqual(fails);
    for (const failure of failures) expect(failure.got, failure.id).toMatch(got);
  });
});
