import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import { fetchTransport } from '../../src/http/fetch-transport';
import type { HttpTransport } from '../../src/http/http-types';
import type { FlagplaneError } from '../../src/shared/errors';
import { useReferenceServer } from '../helpers/reference-server';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';
import { experimentSnapshot } from '../reference-server/encoded-get';

const reference = useReferenceServer();

interface SnapshotAnswer {
  /** The Accept-Encoding the transport added, if any. */
  asked: string | undefined;
  status: number;
  coding: string | null;
  etag: string | null;
  /** The If-None-Match the client sent. */
  sent: string | null;
}

/**
 * The shipped fetchTransport, asking for the coding `accept()` names at each request (none
 * added while it returns undefined: Node's fetch then asks for gzip itself), and recording
 * each snapshot answer as the transport saw it.
 */
function encodingTransport(accept: () => string | undefined = () => undefined) {
  const answers: SnapshotAnswer[] = [];
  const transport: HttpTransport = async (request) => {
    const wanted = accept();
    const result = await fetchTransport(wanted === undefined ? request : { ...request, headers: { ...request.headers, 'accept-encoding': wanted } });
    if (result.kind === 'response' && request.url.includes('/sdk/v1/snapshot')) {
      answers.push({ asked: wanted, status: result.status, coding: result.header('content-encoding'), etag: result.header('etag'), sent: request.headers['if-none-match'] ?? null });
    }
    return result;
  };
  return { transport, answers };
}

function start(transport: HttpTransport, sdkKey: string, pollInterval: number) {
  const errors: FlagplaneError[] = [];
  const client = createClient({ baseUrl: reference.server.baseUrl, sdkKey, pollInterval, transport, events: false, onError: (error) => errors.push(error) });
  reference.clients.push(client);
  return { client, errors };
}

describe('the client reads compressed snapshots from the reference server (real HTTP)', () => {
  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['identity', null],
    [undefined, 'gzip'],
  ])('through fetchTransport asking for %s', async (accept, coding) => {
    const { version } = await reference.server.publish('production', experimentSnapshot(80));
    const key = await reference.server.createKey('production', 'server');
    const { transport, answers } = encodingTransport(() => accept);
    const { client, errors } = start(transport, key, 0);
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(answers).toEqual([{ asked: accept, status: 200, coding, etag: coding === null ? `"snapshot-${version}"` : `W/"snapshot-${version}"`, sent: null }]);
    expect(client.getStatus().version).toBe(version);
    expect(Object.keys(client.getAll())).toHaveLength(80);
    expect(client.get('experiment-a-79')).toBe('control');
    expect(errors).toEqual([]);
  });

  it('gets a 304 after the coding it asks for changes, and the next publish in the new coding', async () => {
    await reference.server.publish('production', experimentSnapshot(80));
    const key = await reference.server.createKey('production', 'server');
    let accept = 'gzip';
    const { transport, answers } = encodingTransport(() => accept);
    const { client, errors } = start(transport, key, 50);
    await client.ready();
    /** The first answer to a request that asked for `coding`, once the polls ask for it. */
    const answerIn = async (coding: string) => {
      accept = coding;
      await waitFor(() => answers.some((answer) => answer.asked === coding), 5000, `a poll asking for ${coding}`);
      const { asked: _asked, ...answer } = answers.find((each) => each.asked === coding)!;
      answers.length = 0;
      return answer;
    };
    expect(answers[0]).toEqual({ asked: 'gzip', status: 200, coding: 'gzip', etag: 'W/"snapshot-2"', sent: null });
    expect(await answerIn('br')).toEqual({ status: 304, coding: null, etag: 'W/"snapshot-2"', sent: 'W/"snapshot-2"' });
    expect(await answerIn('identity')).toEqual({ status: 304, coding: null, etag: '"snapshot-2"', sent: 'W/"snapshot-2"' });

    const flags = { ...experimentSnapshot(80).flags, ...snapshotOf(0, { switched: 'after' }).flags };
    const { version } = await reference.server.publish('production', { schemaVersion: 1, flags });
    await waitFor(() => client.get('switched') === 'after', 5000, 'the published value');
    expect(answers.filter((answer) => answer.status === 200)).toEqual([{ asked: 'identity', status: 200, coding: null, etag: `"snapshot-${version}"`, sent: 'W/"snapshot-2"' }]);
    // Back to br: the strong ETag held from the uncompressed answer still gets a 304.
    expect(await answerIn('br')).toEqual({ status: 304, coding: null, etag: `W/"snapshot-${version}"`, sent: `"snapshot-${version}"` });
    expect(errors).toEqual([]);
  });
});
