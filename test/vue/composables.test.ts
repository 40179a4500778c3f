// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { defineComponent, h, nextTick } from 'vue';
import { createFlagsPlugin, useFlag, useFlags } from '../../vue/index';
import type { FlagsClient } from '../../src/index';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { created } from '../react/created-clients';
import { DetailsText, FlagText, StatusText, hangingClient, hangingOptions, readers, row, snapshotV, useAutoCleanup, type RenderCounts } from './fixtures';

vi.mock('../../src/index', async (original) => (await import('../react/created-clients')).recordingCore(await original()));

useAutoCleanup(created);

/** Mounts `root` in an app given `client` through the plugin. */
const mountWith = (client: FlagsClient, root: ReturnType<typeof row>) => mount(root, { global: { plugins: [createFlagsPlugin({ client })] } });
const textOf = (wrapper: ReturnType<typeof mount>, selector: string) => wrapper.get(selector).text();

describe('useFlag: per-flag updates', () => {
  it('a change of flag A re-renders the readers of A and no reader of B or C', async () => {
    const client = await hangingClient();
    const counts: RenderCounts = {};
    const wrapper = mountWith(
      client,
      row(...readers(counts, 'a', 'b', 'c')),
    );
    expect(counts).toEqual({ a: 1, b: 1, c: 1 });
    client.setOverrides({ a: 'qa' });
    await nextTick();
    expect(textOf(wrapper, '[data-flag="a"]')).toBe('"qa"');
    expect(counts).toEqual({ a: 2, b: 1, c: 1 });
    client.setOverrides({ a: 'qa', b: 'qb' });
    await nextTick();
    expect(textOf(wrapper, '[data-flag="b"]')).toBe('"qb"');
    expect(counts).toEqual({ a: 2, b: 2, c: 1 });
  });

  it("a change of flag A does not even read B: B's listener filters on the change set", async () => {
    const client = await hangingClient();
    mountWith(client, row(() => h(FlagText, { flag: 'b', counts: {} })));
    const get = vi.spyOn(client, 'get');
    client.setOverrides({ a: 'qa' });
    await nextTick();
    expect(get).not.toHaveBeenCalled();
    client.setOverrides({ a: 'qa', b: 'qb' });
    expect(get.mock.calls.map(([key]) => key)).toEqual(['b']);
  });

  it('a context change updates the readers whose value changes, and only them', async () => {
    const client = await hangingClient();
    const counts: RenderCounts = {};
    const wrapper = mountWith(
      client,
      row(...readers(counts, 'banner', 'a')),
    );
    expect(textOf(wrapper, '[data-flag="banner"]')).toBe('"everyone"');
    client.setContext({ attributes: { plan: 'pro' } });
    await nextTick();
    expect(textOf(wrapper, '[data-flag="banner"]')).toBe('"pro"');
    expect(counts).toEqual({ banner: 2, a: 1 });
    client.setContext({ userId: 'user-1', attributes: { plan: 'free' } });
    await nextTick();
    expect(textOf(wrapper, '[data-flag="banner"]')).toBe('"everyone"');
    expect(counts).toEqual({ banner: 3, a: 1 });
  });

  it('a new snapshot updates values, details and status; an unchanged flag is not re-rendered', async () => {
    const server = snapshotServer(snapshotV(1));
    const fake = createFakeTransport(() => 'hang');
    const { createClient } = await import('../../src/index');
    const client = createClient(hangingOptions({ transport: fake.transport }));
    const counts: RenderCounts = {};
    const wrapper = mountWith(
      client,
      row(
        ...readers(counts, 'a', 'b'),
        () => h(DetailsText, { flag: 'a', fallback: 'fb', counts }),
        () => h(StatusText, { counts }),
      ),
    );
    expect(textOf(wrapper, '[data-status]')).toBe('ready/polling/bootstrap/1');
    server.publish(snapshotV(2, { a: 'a2' }));
    fake.setHandler(server.handler);
    await client.refresh();
    await nextTick();
    expect(textOf(wrapper, '[data-flag="a"]')).toBe('"a2"');
    expect(textOf(wrapper, '[data-details="a"]')).toBe('"a2" DEFAULT -');
    expect(textOf(wrapper, '[data-status]')).toBe('ready/polling/network/2');
    expect(counts).toEqual({ a: 2, b: 1, 'details:a': 2, status: 2 });
  });
});

describe('useFlagDetails, useFlags, useFlagsStatus', () => {
  it('details served from the fallback keep their object while equal: an unrelated change re-renders nothing', async () => {
    const client = await hangingClient();
    const counts: RenderCounts = {};
    const wrapper = mountWith(
      client,
      row(
        () => h(DetailsText, { flag: 'missing', fallback: 'fb', counts }),
        () => h(StatusText, { counts }),
      ),
    );
    expect(textOf(wrapper, '[data-details="missing"]')).toBe('"fb" ERROR FLAG_NOT_FOUND');
    client.setOverrides({ a: 'qa' });
    client.setContext({ attributes: { plan: 'pro' } });
    await nextTick();
    expect(counts).toEqual({ 'details:missing': 1, status: 1 });
    client.setOverrides({ missing: 'here' });
    await nextTick();
    expect(textOf(wrapper, '[data-details="missing"]')).toBe('"here" OVERRIDE -');
    expect(counts).toEqual({ 'details:missing': 2, status: 1 });
  });

  it('useFlags follows every flag', async () => {
    const client = await hangingClient();
    let renders = 0;
    const All = defineComponent(() => {
      const flags = useFlags();
      return () => (renders++, h('pre', JSON.stringify(flags.value)));
    });
    const wrapper = mountWith(client, row(() => h(All)));
    expect(JSON.parse(wrapper.get('pre').text())).toEqual({ a: 'a1', b: 'b1', c: 'c1', banner: 'everyone' });
    client.setOverrides({ c: 'qc' });
    await nextTick();
    expect(JSON.parse(wrapper.get('pre').text())).toMatchObject({ c: 'qc' });
    expect(renders).toBe(2);
  });

  it('the refs are read-only: assigning throws, and the client is unchanged', async () => {
    const client = await hangingClient();
    let value!: ReturnType<typeof useFlag>;
    mountWith(
      client,
      row(() =>
        h(
          defineComponent(() => {
            value = useFlag('a', 'fb');
            return () => h('i');
          }),
        ),
      ),
    );
    expect(() => ((value as { value: unknown }).value = 'mine')).toThrow(TypeError);
    expect(value.value).toBe('a1');
    expect(client.get('a', 'fb')).toBe('a1');
  });
});
