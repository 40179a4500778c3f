import { expect, it } from 'vitest';
import { describeRuntime, type RuntimeSpec } from './runtime-driver';
import { expectDemoScenario, expectPollingScenario } from './scenario-checks';

/** The variables scenario/scenario.mjs reads: the only ones Deno lets it see. */
const SCENARIO_VARIABLES = ['FLAGPLANE_BASE_URL', 'FLAGPLANE_SDK_KEY', 'FLAGPLANE_STREAM_URL', 'FLAGPLANE_PERSIST', 'FLAGPLANE_SYNC_TABS'];

/**
 * Deno as npm installs it, with the least it needs: the network to the server's port only, and
 * the scenario's variables. Each run's DENO_DIR (where Deno keeps localStorage) is its own
 * unless a test shares it between runs.
 */
export const DENO: RuntimeSpec = {
  name: 'Deno',
  binary: 'node_modules/.bin/deno',
  args: (script, server) => ['run', '--no-prompt', `--allow-net=127.0.0.1:${server.port}`, `--allow-env=${SCENARIO_VARIABLES.join(',')}`, script],
  env: (runDir) => ({ DENO_DIR: runDir, DENO_NO_UPDATE_CHECK: '1' }),
};

describeRuntime(DENO, (suite) => {
  it('serves the demo, targets, sends events, hears a publish over its global WebSocket, and exits by itself after close()', async () => {
    const { closed } = await expectDemoScenario(suite);
    expect(closed.storedKeys).toBe(0);
  });

  it("does not persist to Deno's on-disk localStorage by default: a second run starts from the network", async () => {
    for (const run of ['first', 'second']) {
      const { started, ready, closed } = await expectPollingScenario(suite, { stateDir: 'default-options' });
      expect({ run, before: started.storedKeys, after: closed.storedKeys }).toEqual({ run, before: 0, after: 0 });
      expect(ready.ready, run).toEqual({ status: 'ready', source: 'network' });
    }
  });

  it('persists there with persist: true: the second run starts from the cache', async () => {
    const first = await expectPollingScenario(suite, { persist: true, stateDir: 'persist' });
    expect(first.ready.ready).toEqual({ status: 'ready', source: 'network' });
    expect(first.closed.storedKeys).toBeGreaterThan(0);
    const second = await expectPollingScenario(suite, { persist: true, stateDir: 'persist' });
    expect(second.started.storedKeys).toBe(first.closed.storedKeys);
    expect(second.ready.ready).toEqual({ status: 'ready', source: 'cache' });
  });

  it('opens no BroadcastChannel by default (every run checks it); with syncTabs: true close() closes the one it opens', async () => {
    const { closed } = await expectPollingScenario(suite, { syncTabs: true });
    expect(closed.channels).toEqual({ opened: 1, closed: 1 });
  });
});
