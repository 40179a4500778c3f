import type { AnyProviderEvent } from '@openfeature/core';
import { createClient, type ClientOptions, type FlagsClient } from '../src/index';
import { bridgeEvents, ProviderEventEmitter } from './provider-events';

/** A provider's client: the app's own (which the provider never closes), or one it creates from options (and closes). */
export type ClientSource = FlagsClient | ClientOptions;

const isClient = (source: ClientSource): source is FlagsClient => typeof (source as FlagsClient).getDetails === 'function';

/** What both providers share: the client, its events as OpenFeature's, and closing. */
export abstract class ProviderBase<E extends AnyProviderEvent> {
  readonly metadata = { name: 'flagplane' } as const;
  readonly events = new ProviderEventEmitter<E>();
  /** The flagplane client the provider reads: `subscribe`, `getStatus` and the rest stay available. */
  readonly client: FlagsClient;
  private readonly owned: boolean;
  private stopEvents = (): void => undefined;

  constructor(source: ClientSource) {
    this.owned = !isClient(source);
    this.client = isClient(source) ? source : createClient(source);
  }

  /**
   * `initialize`'s wait: resolves on the client's first snapshot, throws (OpenFeature's
   * ERROR) on a timeout or a closed client. Either way the client's changes are bridged to
   * provider events from then on, so a snapshot that comes late is announced as READY.
   */
  protected async whenReady(quiet: () => boolean): Promise<void> {
    try {
      const result = await this.client.ready();
      if (result.status === 'ready') return;
      const error = this.client.getStatus().error;
      throw new Error(
        result.status === 'timeout'
          ? `flagplane: no snapshot within readyTimeout${error ? ` (${error.message})` : ''}; READY follows when one arrives`
          : result.status === 'interrupted'
            ? 'flagplane: the framework the app runs in ended the first fetch (a server render that ended); READY follows when a snapshot arrives'
            : 'flagplane: the client was closed before its first snapshot',
      );
    } finally {
      this.stopEvents();
      this.stopEvents = bridgeEvents(this.client, this.events as ProviderEventEmitter<AnyProviderEvent>, quiet);
    }
  }

  /** Stops the events; closes the client if the provider created it. */
  async onClose(): Promise<void> {
    this.stopEvents();
    if (this.owned) await this.client.close();
  }
}
