import { heldSnapshot, type FlagsClient, type JsonValue } from '../src/index';
import { matchesHotkey } from './hotkey';
import { overridesPart } from './overrides-part';
import { createPanelView } from './panel-view';
import { watchReads } from './read-watch';
import { emptyLog, recordStatus } from './status-log';
import type { FlagRow } from './flag-rows';

/** Options of {@link mountDevtools}. */
export interface DevtoolsOptions {
  /**
   * The key combination that opens and closes the panel: modifiers and one key, joined by
   * `+` (`'Ctrl+Alt+D'`). `false`: no hotkey (use `toggle()`).
   * @default 'Alt+Shift+F'
   */
  hotkey?: string | false;
  /** Whether the panel starts open. @default false */
  open?: boolean;
  /**
   * The `sessionStorage` key the panel's overrides are kept under. Give one per client when
   * a page has two clients of the same environment.
   * @default 'flagplane-devtools:overrides:' + the snapshot's environmentId
   */
  storageKey?: string;
}

/** The mounted panel. */
export interface Devtools {
  open(): void;
  close(): void;
  toggle(): void;
  /**
   * Removes the element, its hotkey listener and its subscription, puts back the client's
   * methods it wrapped, and takes its overrides off the client (they stay in
   * `sessionStorage` for the next mount). Calling it again does nothing.
   */
  unmount(): void;
}

/**
 * Appends the flag panel (`<flagplane-devtools>`, its styles in its own shadow root) to
 * `document.body`, closed unless `options.open`. It shows every flag the client serves,
 * its status and context, and sets local overrides, kept in the tab's `sessionStorage`.
 */
export function mountDevtools(client: FlagsClient<any>, options: DevtoolsOptions = {}): Devtools {
  const target = client as FlagsClient;
  const hotkey = options.hotkey ?? 'Alt+Shift+F';
  let log = emptyLog();
  let isOpen = false;
  let mounted = true;
  // Reads during a React render note new keys: the panel updates after it, once.
  let queued = false;
  const update = () => {
    if (queued || !isOpen) return;
    queued = true;
    queueMicrotask(() => ((queued = false), mounted && isOpen && view.render(model())));
  };
  const watch = watchReads(target, update, () => overrides.apply());
  const overrides = overridesPart(target, watch, options.storageKey, update);
  const view = createPanelView({
    override: overrides.set,
    clear: overrides.clear,
    clearAll: overrides.clearAll,
    close: () => devtools.close(),
    searched: update,
  });

  function model() {
    const snapshot = heldSnapshot(target);
    const flags = snapshot?.flags ?? {};
    const known = Object.keys(flags);
    const inSnapshot = (key: string) => Object.prototype.hasOwnProperty.call(flags, key);
    const others = [...new Set([...watch.reads.keys(), ...Object.keys(target.getAll()), ...Object.keys(overrides.current())])].filter((key) => !inSnapshot(key));
    const rows: FlagRow[] = [...known.sort(), ...others.sort()].map((key) => ({
      key,
      details: watch.own.getDetails(key, watch.reads.get(key) as JsonValue),
      inSnapshot: inSnapshot(key),
      overridden: key in overrides.current(),
    }));
    return { rows, log, context: target.getContext() };
  }

  const seeStatus = () => {
    log = recordStatus(log, target.getStatus(), Date.now());
    overrides.load();
    update();
  };
  const unsubscribe = target.subscribe(seeStatus);
  const onKey = (event: KeyboardEvent) => {
    if (hotkey && matchesHotkey(event, hotkey)) (event.preventDefault(), devtools.toggle());
  };
  addEventListener('keydown', onKey);
  document.body.append(view.host);
  seeStatus();

  const devtools: Devtools = {
    open() {
      if (!mounted || isOpen) return;
      isOpen = true;
      view.host.hidden = false;
      view.render(model());
    },
    close() {
      isOpen = false;
      view.host.hidden = true;
    },
    toggle: () => (isOpen ? devtools.close() : devtools.open()),
    unmount() {
      if (!mounted) return;
      mounted = isOpen = false;
      unsubscribe();
      removeEventListener('keydown', onKey);
      view.host.remove();
      watch.restore();
      overrides.detach();
    },
  };
  if (options.open) devtools.open();
  return devtools;
}
