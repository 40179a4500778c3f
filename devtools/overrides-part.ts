import { heldSnapshot, type FlagsClient, type JsonValue } from '../src/index';
import { kindOf, kindsOf, parseOverride, type JsonKind } from './json-kind';
import { loadOverrides, overridesKey, saveOverrides, sessionStore } from './override-store';
import type { ReadWatch } from './read-watch';

/**
 * The panel's overrides: applied on top of the app's own through the client's
 * `setOverrides` (so every reader, `useFlag` included, hears of them), and kept in the
 * tab's `sessionStorage` under `storageKey`, else a key named after the snapshot's
 * environment, once there is a snapshot to name it. `changed` hears of every change.
 */
export function overridesPart(client: FlagsClient, watch: ReadWatch, storageKey: string | undefined, changed: () => void) {
  const storage = sessionStore();
  let key = storageKey ?? null;
  let loaded = false;
  let ours: Record<string, JsonValue> = {};

  const count = () => Object.keys(ours).length;
  const apply = () => watch.own.setOverrides({ ...watch.appOverrides(), ...ours });

  function replace(next: Record<string, JsonValue>): void {
    ours = next;
    if (loaded) saveOverrides(storage, key!, ours);
    apply();
    changed();
  }

  /** The JSON kinds `flagKey` may be overridden with: its variations', else the fallback's the app read it with. */
  function kindsFor(flagKey: string): JsonKind[] {
    const flag = heldSnapshot(client)?.flags[flagKey];
    if (flag) return kindsOf(flag);
    const fallback = watch.reads.get(flagKey) ?? client.getAll()[flagKey];
    return fallback === undefined || fallback === null ? [] : [kindOf(fallback)];
  }

  return {
    apply,
    current: () => ours,
    /** Loads the kept overrides and applies them, once the key is known (at the mount, or at the first snapshot). */
    load(): void {
      if (loaded) return;
      key ??= heldSnapshot(client) ? overridesKey(heldSnapshot(client)!.environmentId) : null;
      if (key === null) return;
      loaded = true;
      // Any set before the key was known win over the kept ones, and are kept with them.
      const before = count();
      ours = { ...loadOverrides(storage, key), ...ours };
      if (before) saveOverrides(storage, key, ours);
      if (count()) apply();
    },
    /** Overrides `flagKey` with `text` parsed as JSON; a message for a value refused, else `null`. */
    set(flagKey: string, text: string): string | null {
      const parsed = parseOverride(text, kindsFor(flagKey));
      if (!parsed.ok) return parsed.message;
      replace({ ...ours, [flagKey]: parsed.value });
      return null;
    },
    clear(flagKey: string): void {
      if (!(flagKey in ours)) return;
      const { [flagKey]: _cleared, ...rest } = ours;
      replace(rest);
    },
    clearAll(): void {
      if (count()) replace({});
    },
    /** Takes the panel's overrides off the client, leaving the app's own. */
    detach(): void {
      if (count()) watch.own.setOverrides(watch.appOverrides());
    },
  };
}
