import { expect, it } from 'vitest';
import { describeRuntime, type RuntimeSpec } from './runtime-driver';
import { expectDemoScenario, expectPollingScenario } from './scenario-checks';

/** Bun as npm installs it, running the scenario as `bun scenario.mjs`. */
export const BUN: RuntimeSpec = {
  name: 'Bun',
  binary: 'node_modules/.bin/bun',
  args: (script) => [script],
};

describeRuntime(BUN, (suite) => {
  it('serves the demo, targets, sends events, hears a publish over its global WebSocket, and exits by itself after close()', async () => {
    const { closed } = await expectDemoScenario(suite);
    // Bun has no localStorage: nothing to persist to, whatever the default.
    expect(closed.storedKeys).toBeNull();
  });

  it('polls with the default options, and its timers do not keep Bun running after close()', async () => {
    const { ready } = await expectPollingScenario(suite);
    expect(ready.ready).toEqual({ status: 'ready', source: 'network' });
  });
});
