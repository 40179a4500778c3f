// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { createApp, defineComponent, effectScope, h, nextTick, ref } from 'vue';
import { createFlagsPlugin, useFlag, useFlagDetails, useFlags, useFlagsClient, useFlagsStatus } from '../../vue/index';
import { ConfigError, FlagplaneError } from '../../src/index';
import { created, listeners } from '../react/created-clients';
import { FlagText, hangingClient, hangingOptions, row, useAutoCleanup, type RenderCounts } from './fixtures';

vi.mock('../../src/index', async (original) => (await import('../react/created-clients')).recordingCore(await original()));

useAutoCleanup(created);

/** A component that calls every composable once. */
const Everything = defineComponent(() => {
  const reads = [useFlag('a', 'fb'), useFlagDetails('b', 'fb'), useFlags(), useFlagsStatus()];
  useFlagsClient();
  return () => h('p', reads.map((read) => JSON.stringify(read.value)).join(' '));
});

describe('createFlagsPlugin: who owns the client', () => {
  it('with options, creates a client on install and closes it on app.unmount()', async () => {
    const wrapper = mount(Everything, { global: { plugins: [createFlagsPlugin(hangingOptions())] } });
    expect(created).toHaveLength(1);
    const [client] = created;
    expect(client!.getStatus().connection).toBe('polling');
    expect(wrapper.text()).toContain('"a1"');
    wrapper.unmount();
    expect(client!.getStatus().connection).toBe('stopped');
    expect(listeners(client!)).toBe(0);
  });

  it("with { client }, provides the app's client and leaves it open after unmount", async () => {
    const client = await hangingClient();
    const wrapper = mount(Everything, { global: { plugins: [createFlagsPlugin({ client })] } });
    let provided: unknown;
    mount(
      defineComponent(() => ((provided = useFlagsClient()), () => null)),
      { global: { plugins: [createFlagsPlugin({ client })] } },
    ).unmount();
    expect(provided).toBe(client);
    wrapper.unmount();
    expect(client.getStatus().connection).toBe('polling');
    expect(created).toEqual([client]);
  });

  it('one plugin object installed in two apps gives each its own client, closed with its app', () => {
    const plugin = createFlagsPlugin(hangingOptions());
    const first = mount(Everything, { global: { plugins: [plugin] } });
    const second = mount(Everything, { global: { plugins: [plugin] } });
    expect(created).toHaveLength(2);
    first.unmount();
    expect(created.map((client) => client.getStatus().connection)).toEqual(['stopped', 'polling']);
    second.unmount();
    expect(created[1]!.getStatus().connection).toBe('stopped');
  });
});

describe('subscriptions: nothing is left behind', () => {
  it('each composable holds one listener while mounted, and none after unmount', async () => {
    const client = await hangingClient();
    const wrapper = mount(Everything, { global: { plugins: [createFlagsPlugin({ client })] } });
    expect(listeners(client)).toBe(4);
    wrapper.unmount();
    expect(listeners(client)).toBe(0);
  });

  it('a reader removed by v-if drops its listener while the app goes on, and hears nothing more', async () => {
    const client = await hangingClient();
    const shown = ref(true);
    const counts: RenderCounts = {};
    const wrapper = mount(
      defineComponent(() => () => h('div', [shown.value ? h(FlagText, { flag: 'a', counts }) : null, h(FlagText, { flag: 'b', counts })])),
      { global: { plugins: [createFlagsPlugin({ client })] } },
    );
    expect(listeners(client)).toBe(2);
    shown.value = false;
    await nextTick();
    expect(listeners(client)).toBe(1);
    client.setOverrides({ a: 'qa' });
    await nextTick();
    expect(counts).toEqual({ a: 1, b: 1 });
    expect(wrapper.text()).toBe('"b1"');
  });

  it('in an effect scope of the app (a store, say), the listener goes with the scope', async () => {
    const client = await hangingClient();
    const app = createApp({ render: () => null }).use(createFlagsPlugin({ client }));
    const scope = effectScope();
    const value = app.runWithContext(() => scope.run(() => useFlag('a', 'fb'))!);
    expect(listeners(client)).toBe(1);
    client.setOverrides({ a: 'qa' });
    expect(value.value).toBe('qa');
    scope.stop();
    expect(listeners(client)).toBe(0);
  });
});

describe('outside an app with the plugin', () => {
  const message = /useFlag needs the flags plugin: .*app\.use\(createFlagsPlugin\(/;

  it('a composable called outside setup throws a ConfigError that says to install the plugin, and Vue warns of nothing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(() => useFlag('a', 'fb')).toThrow(ConfigError);
    expect(() => useFlag('a', 'fb')).toThrow(message);
    expect(() => useFlagsClient()).toThrow(/^useFlagsClient needs the flags plugin/);
    // inject() is not called outside an injection context, where Vue would warn.
    expect(warn).not.toHaveBeenCalled();
  });

  it('in a component of an app without the plugin, setup fails with that error', () => {
    const errors: unknown[] = [];
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const app = createApp(defineComponent(() => (useFlag('a', 'fb'), () => null)));
    app.config.errorHandler = (error) => void errors.push(error);
    app.mount(document.createElement('div'));
    app.unmount();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(FlagplaneError);
    expect((errors[0] as FlagplaneError).code).toBe('config');
    expect((errors[0] as Error).message).toMatch(message);
  });
});
