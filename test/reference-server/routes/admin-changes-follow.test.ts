// The console's feed client (reference-server/console/change-feed.ts) against a real server:
// it reads everything on each (re)connection, and a server gone away is followed again.
import { afterEach, expect, it } from 'vitest';
import { followChanges, type FeedConnection } from '../../../reference-server/console/change-feed';
import type { AdminChange } from '../../../reference-server/routes/admin-change-kinds';
import { demoConfig } from '../../../reference-server/index';
import { waitFor } from '../../helpers/wait-for';
import { useServers } from '../helpers';

const servers = useServers();
const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

it('reconnects after the server went away, reads everything once per connection, and stops on 401', async () => {
  const first = await servers.start();
  const seen = { ready: 0, connections: [] as FeedConnection[], changes: [] as AdminChange[], refused: 0 };
  const follow = (token: string) =>
    followChanges({
      origin: first.baseUrl,
      token,
      onReady: () => void (seen.ready += 1),
      onChange: (change) => void seen.changes.push(change),
      onConnection: (connection) => void seen.connections.push(connection),
      onRefused: () => void (seen.refused += 1),
      random: () => 0,
    });
  stops.push(follow(first.adminToken));
  await waitFor(() => seen.ready === 1, 3000, 'the first ready');
  await first.publish('production', { schemaVersion: 1, flags: {} });
  await waitFor(() => seen.changes.length === 1, 3000, 'the publish');

  await first.close();
  await waitFor(() => seen.connections.at(-1) === 'reconnecting', 3000, 'reconnecting');
  const second = await servers.start({ port: first.port, config: { ...demoConfig(), adminToken: first.adminToken } });
  await waitFor(() => seen.ready === 2, 5000, 'ready on the new server');
  expect(seen.connections.at(-1)).toBe('live');
  await second.publish('staging', { schemaVersion: 1, flags: {} });
  await waitFor(() => seen.changes.length === 2, 3000, 'a publish on the new server');
  expect(seen.changes[1]).toMatchObject({ kind: 'published', environmentId: 'staging' });

  stops.push(follow('not-the-token'));
  await waitFor(() => seen.refused === 1, 3000, 'the refusal');
});
