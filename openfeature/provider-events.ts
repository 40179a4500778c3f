import { ErrorCode, GenericEventEmitter, type AnyProviderEvent, type EventContext } from '@openfeature/core';
import { HttpError, type ClientStatus, type FlagsClient } from '../src/index';

type Listener = (...args: unknown[]) => void;

/**
 * The platform emitter OpenFeature's `GenericEventEmitter` runs on. Each SDK brings its own
 * (Node's `events` on servers, `eventemitter3` in browsers); this one works on both, so the
 * entry depends on `@openfeature/core` alone, and a web app never loads the server SDK.
 */
class ListenerMap {
  private readonly listenersOf = new Map<string | symbol, Listener[]>();
  on(name: string | symbol, listener: Listener): this {
    this.listenersOf.set(name, [...this.listeners(name), listener]);
    return this;
  }
  addListener(name: string | symbol, listener: Listener): this {
    return this.on(name, listener);
  }
  once(name: string | symbol, listener: Listener): this {
    const once: Listener = (...args) => {
      this.off(name, once);
      listener(...args);
    };
    return this.on(name, once);
  }
  off(name: string | symbol, listener: Listener): this {
    const rest = this.listeners(name);
    const at = rest.lastIndexOf(listener);
    if (at >= 0) this.listenersOf.set(name, rest.filter((_, i) => i !== at));
    return this;
  }
  removeListener(name: string | symbol, listener: Listener): this {
    return this.off(name, listener);
  }
  removeAllListeners(name?: string | symbol): this {
    if (name === undefined) this.listenersOf.clear();
    else this.listenersOf.delete(name);
    return this;
  }
  listeners(name: string | symbol): Listener[] {
    return this.listenersOf.get(name) ?? [];
  }
  listenerCount(name: string | symbol): number {
    return this.listeners(name).length;
  }
  eventNames(): Array<string | symbol> {
    return [...this.listenersOf.keys()].filter((name) => this.listenerCount(name) > 0);
  }
  emit(name: string | symbol, ...args: unknown[]): boolean {
    const listeners = this.listeners(name);
    for (const listener of listeners) listener(...args);
    return listeners.length > 0;
  }
}

/** A provider's `events`: OpenFeature's emitter on {@link ListenerMap}. */
export class ProviderEventEmitter<E extends AnyProviderEvent> extends GenericEventEmitter<E> {
  protected readonly eventEmitter = new ListenerMap();
}

/** How a provider stands, from the client's status. */
type Health = 'not-ready' | 'ready' | 'stale' | 'fatal';

/**
 * Why the data plane refused the client's key for good, or `null`: a fetch answered 401 or 403
 * (a bad or revoked key, or one of another environment), or — `streamRefusal`, which the
 * provider hears through the `onError` of a client it made — the stream closed with 4401 or
 * 4403. Waiting will not heal either: OpenFeature's FATAL.
 */
export const refusal = (status: ClientStatus, streamRefusal: string | null): string | null =>
  status.error instanceof HttpError && (status.error.status === 401 || status.error.status === 403) ? status.error.message : streamRefusal;

function healthOf(status: ClientStatus, streamRefusal: string | null, previous?: Health): Health {
  if (previous === 'fatal' || refusal(status, streamRefusal)) return 'fatal';
  if (status.version === null) return 'not-ready';
  // A reconnect attempt (`connecting` after a lost stream) is not the stream back: stale until it streams.
  return status.error || status.connection === 'reconnecting' || (status.connection === 'connecting' && previous === 'stale') ? 'stale' : 'ready';
}

const EVENT_OF = { ready: 'PROVIDER_READY', stale: 'PROVIDER_STALE', fatal: 'PROVIDER_ERROR' } as const;

/**
 * Turns the client's changes into OpenFeature provider events, from the moment it is called
 * (the SDK itself announces the first READY, or ERROR, when `initialize` settles):
 * - READY when the client serves a snapshot again after a failure, a lost stream, or no
 *   snapshot at `initialize`;
 * - STALE while a fetch fails or the stream reconnects (the values served may be old);
 * - ERROR with `PROVIDER_FATAL`, once and for good, when the data plane refuses the key
 *   (see {@link refusal}): nothing follows it, so the SDK's FATAL state stays;
 * - CONFIGURATION_CHANGED for a new snapshot version, or flags whose value changed, with
 *   `flagsChanged` (the flags read so far whose value, variation, reason or rule changed)
 *   — except while `quiet()`, when the change is the app's own context change.
 * Returns the function that stops it.
 */
export function bridgeEvents(
  client: FlagsClient,
  emitter: ProviderEventEmitter<AnyProviderEvent>,
  quiet: () => boolean,
  streamRefusal: () => string | null,
  onFatal: (reason: string) => void,
): () => void {
  let { version } = client.getStatus();
  let health = healthOf(client.getStatus(), streamRefusal());
  return client.subscribe(({ changed, status }) => {
    if (status.connection === 'stopped' || health === 'fatal') return;
    const next = healthOf(status, streamRefusal(), health);
    if (next !== health && next !== 'not-ready') {
      const fatal = next === 'fatal' && refusal(status, streamRefusal());
      if (fatal) onFatal(fatal);
      const details: EventContext = fatal
        ? { message: fatal, errorCode: ErrorCode.PROVIDER_FATAL }
        : next === 'ready'
          ? {}
          : { message: status.error?.message ?? 'the stream is reconnecting' };
      emitter.emit(EVENT_OF[next] as AnyProviderEvent, details);
    }
    health = next;
    if (status.version !== version || (changed.size > 0 && !quiet())) {
      emitter.emit('PROVIDER_CONFIGURATION_CHANGED' as AnyProviderEvent, {
        flagsChanged: [...changed],
        ...(status.version !== null && { metadata: { version: status.version } }),
      });
    }
    version = status.version;
  });
}
