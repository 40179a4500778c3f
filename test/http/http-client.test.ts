import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/http/http-client';
import type { HttpTransport } from '../../src/http/http-types';
import { defaultScheduler } from '../../src/shared/scheduler';

const clientOn = (transport: HttpTransport) =>
  createHttpClient({ transport, scheduler: defaultScheduler, requestTimeout: 0, baseUrl: 'https://flags.test', sdkKey: 'svc_sdk_client_http_0001' });
const answered: HttpTransport = async () => ({ kind: 'response', status: 200, header: () => null, body: '{}' });
const hanging: HttpTransport = (request) => new Promise(() => void request);

/** A controller whose `abort()` throws, as Workers' do for another request's I/O. */
class ForeignController extends AbortController {
  aborts = 0;
  override abort(): void {
    this.aborts++;
    throw new Error('Cannot perform I/O on behalf of a different request');
  }
}

describe('the HTTP client: aborts', () => {
  it('leaves a settled request alone: its controller is never aborted afterwards', async () => {
    const http = clientOn(answered);
    const controller = new AbortController();
    expect(await http.send('GET /sdk/v1/snapshot', {}, controller)).toMatchObject({ kind: 'response', status: 200 });
    http.abort(controller);
    http.abort();
    expect(controller.signal.aborted).toBe(false);
  });

  it('a controller that throws on abort: abort() does not throw, and the request settles as aborted', async () => {
    const http = clientOn(hanging);
    const controller = new ForeignController();
    const sent = http.send('GET /sdk/v1/snapshot', {}, controller);
    expect(() => http.abort(controller)).not.toThrow();
    expect(await sent).toEqual({ kind: 'aborted' });
    expect(controller.aborts).toBe(1);
    expect(() => http.abort()).not.toThrow();
  });

  it('abort() without a controller aborts every request in flight', async () => {
    const http = clientOn(hanging);
    const controllers = [new AbortController(), new AbortController()];
    const sent = controllers.map((controller) => http.send('GET /sdk/v1/snapshot', {}, controller));
    http.abort();
    expect(await Promise.all(sent)).toEqual([{ kind: 'aborted' }, { kind: 'aborted' }]);
    expect(controllers.map((controller) => controller.signal.aborted)).toEqual([true, true]);
  });
});
