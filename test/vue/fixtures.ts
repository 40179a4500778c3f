import { enableAutoUnmount } from '@vue/test-utils';
import { afterEach, vi } from 'vitest';
import { defineComponent, h } from 'vue';
import { useFlag, useFlagDetails, useFlagsStatus } from '../../vue/index';
import type { ClientOptions, FlagsClient, FlagSnapshot, JsonValue } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport } from '../helpers/fake-transport';
import { snapshotV } from '../helpers/snapshots';

export { snapshotV };

/** No localStorage (happy-dom keeps it across a file's tests), no diagnostic events. */
export const QUIET = { persist: false, events: false } as const;

/** Renders per name, counted inside the render function: exactly the renders Vue ran. */
export type RenderCounts = Record<string, number>;

/** After each test: unmount what test-utils mounted, undo stubs and spies, close every client in `clientLists`. */
export function useAutoCleanup(...clientLists: FlagsClient[][]): void {
  enableAutoUnmount(afterEach);
  afterEach(async () => {
    document.body.innerHTML = '';
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    localStorage.clear();
    for (const clients of clientLists) for (const client of clients.splice(0)) await client.close();
  });
}

/** Options of a client on a transport that never answers, already serving `bootstrap`. */
export function hangingOptions(extra: Partial<ClientOptions> = {}, bootstrap: FlagSnapshot = snapshotV(1)): ClientOptions {
  return { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: createFakeTransport(() => 'hang').transport, bootstrap, ...QUIET, ...extra };
}

/** A hanging client serving `snapshotV(1, values)`, created through the (mocked) core. */
export async function hangingClient(values: Parameters<typeof snapshotV>[1] = {}): Promise<FlagsClient> {
  const { createClient } = await import('../../src/index');
  return createClient(hangingOptions({}, snapshotV(1, values)));
}

/** A component showing `useFlag(flag)` in `<span data-flag=…>`, counting its renders in `counts[flag]`. */
export const FlagText = defineComponent({
  props: { flag: { type: String, required: true }, counts: { type: Object as () => RenderCounts, required: true } },
  setup(props) {
    const value = useFlag(props.flag);
    return () => {
      props.counts[props.flag] = (props.counts[props.flag] ?? 0) + 1;
      return h('span', { 'data-flag': props.flag }, JSON.stringify(value.value));
    };
  },
});

/** `useFlagDetails(flag, fallback)` as `value reason errorCode`, counted in `counts['details:' + flag]`. */
export const DetailsText = defineComponent({
  props: { flag: { type: String, required: true }, fallback: { type: null, required: true }, counts: { type: Object as () => RenderCounts, required: true } },
  setup(props) {
    const details = useFlagDetails(props.flag, props.fallback as JsonValue);
    return () => {
      const name = `details:${props.flag}`;
      props.counts[name] = (props.counts[name] ?? 0) + 1;
      const { value, reason, errorCode } = details.value;
      return h('span', { 'data-details': props.flag }, `${JSON.stringify(value)} ${reason} ${errorCode ?? '-'}`);
    };
  },
});

/** `useFlagsStatus()` as `status/connection/source/version`, counted in `counts.status`. */
export const StatusText = defineComponent({
  props: { counts: { type: Object as () => RenderCounts, required: true } },
  setup(props) {
    const status = useFlagsStatus();
    return () => {
      props.counts.status = (props.counts.status ?? 0) + 1;
      const { status: readiness, connection, source, version } = status.value;
      return h('span', { 'data-status': '' }, `${readiness}/${connection}/${source}/${version}`);
    };
  },
});

/** A root rendering `children` (render functions of components above) side by side. */
export const row = (...children: Array<() => ReturnType<typeof h>>) => defineComponent({ render: () => h('div', children.map((child) => child())) });

/** A `FlagText` for each of `flags`, for `row`. */
export const readers = (counts: RenderCounts, ...flags: string[]) => flags.map((flag) => () => h(FlagText, { flag, counts }));

