import { ProviderFatalError, type AnyProviderEvent } from '@openfeature/core';
import { createClient, StreamError, type ClientOptions, type FlagsClient, type FlagplaneError } from '../src/index';
import { bridgeEvents, ProviderEventEmitter, refusal } from './provider-events';

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
  /** Why the stream refused the key (4401, 4403), heard through the `onError` of a client the provider made. */
  private streamRefusal: string | null = null;
  /** Why the provider is FATAL, once it is: for good. */
  protected fatalReason: string | null = null;

  constructor(source: ClientSource) {
    this.owned = !isClient(source);
    this.client = isClient(source) ? source : createClient({ ...source, onError: (error) => this.heard(error, source.onError) });
  }

  private heard(error: FlagplaneError, onError: ClientOptions['onError']): void {
    if (error instanceof StreamError && (error.closeCode === 4401 || error.closeCode === 4403)) this.streamRefusal ??= error.message;
    onError?.(error);
  }

  /** Settles when the data plane refuses the key for good; the function stops watching. */
  private watchRefusal(): { refused: Promise<string>; stop: () => void } {
    let stop = (): void => undefined;
    const refused = new Promise<string>((resolve) => {
      const check = () => {
        const reason = refusal(this.client.getStatus(), this.streamRefusal);
        if (reason) resolve(reason);
      };
      stop = this.client.subscribe(check);
      check();
    });
    return { refused, stop };
  }

  /**
   * `initialize`'s wait: resolves on the client's first snapshot, throws (OpenFeature's
   * ERROR) on a timeout or a closed client, and `ProviderFatalError` (FATAL) as soon as the
   * data plane refuses the key. Either way the client's changes are bridged to
   * provider events from then on, so a snapshot that comes late is announced as READY.
   */
  protected async whenReady(quiet: () => boolean): Promise<void> {
    const watch = this.watchRefusal();
    try {
      const result = await Promise.race([this.client.ready(), watch.refused]);
      // A refused key fails at once, not at readyTimeout: OpenFeature's FATAL.
      if (typeof result === 'string') throw new ProviderFatalError(`flagplane: the data plane refused the key (${(this.fatalReason = result)})`);
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
      watch.stop();
      this.stopEvents();
      this.stopEvents = bridgeEvents(
        this.client,
        this.events as ProviderEventEmitter<AnyProviderEvent>,
        quiet,
        () => this.streamRefusal,
        (reason) => (this.fatalReason = reason),
      );
    }
  }

  /** Stops the events; closes the client if the provider created it. */
  async onClose(): Promise<void> {
    this.stopEvents();
    if (this.owned) await this.client.close();
  }
}
