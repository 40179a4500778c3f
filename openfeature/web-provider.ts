import { ClientProviderEvents, ErrorCode } from '@openfeature/core';
import type { EvaluationContext, JsonValue, Provider, ProviderEmittableEvents, ResolutionDetails } from '@openfeature/web-sdk';
import { toFlagplaneContext } from './context';
import { ProviderBase } from './provider-base';
import { resolveFrom } from './resolution';

/**
 * flagplane as an OpenFeature provider for `@openfeature/web-sdk` (static context: one user
 * per app). Give it client options (it creates the client, and closes it on `onClose`) or a
 * client of the app's (left open). docs/openfeature.md has the mappings.
 */
export class FlagplaneWebProvider extends ProviderBase<ProviderEmittableEvents> implements Provider {
  readonly runsOn = 'client';
  /** Set while the provider applies the app's own context change: no CONFIGURATION_CHANGED for it. */
  private reconciling = false;

  /** Applies OpenFeature's context (when it has one), then waits for the client's first snapshot. */
  async initialize(context?: EvaluationContext): Promise<void> {
    if (context && Object.keys(context).length > 0) this.client.setContext(toFlagplaneContext(context));
    await this.whenReady(() => this.reconciling);
  }

  /** Evaluation is local: the new context applies at once, with no RECONCILING state. */
  onContextChange(_previous: EvaluationContext, next: EvaluationContext): void {
    this.reconciling = true;
    try {
      this.client.setContext(toFlagplaneContext(next));
    } finally {
      this.reconciling = false;
    }
    // The web SDK marks a provider READY after every context change, FATAL or not: FATAL is
    // for good, so it is announced again once the SDK is done.
    const reason = this.fatalReason;
    if (reason) queueMicrotask(() => this.events.emit(ClientProviderEvents.Error, { message: reason, errorCode: ErrorCode.PROVIDER_FATAL }));
  }

  resolveBooleanEvaluation(key: string, fallback: boolean): ResolutionDetails<boolean> {
    return resolveFrom.primitive(this.client, this.client, key, fallback);
  }

  resolveStringEvaluation(key: string, fallback: string): ResolutionDetails<string> {
    return resolveFrom.primitive(this.client, this.client, key, fallback);
  }

  resolveNumberEvaluation(key: string, fallback: number): ResolutionDetails<number> {
    return resolveFrom.primitive(this.client, this.client, key, fallback);
  }

  resolveObjectEvaluation<T extends JsonValue>(key: string, fallback: T): ResolutionDetails<T> {
    return resolveFrom.object(this.client, this.client, key, fallback);
  }
}
