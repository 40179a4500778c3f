import type { EvaluationContext, JsonValue, Provider, ResolutionDetails, ServerProviderEvents } from '@openfeature/server-sdk';
import { forContext } from '../src/index';
import { toFlagplaneContext } from './context';
import { ProviderBase } from './provider-base';
import { resolveFrom } from './resolution';

/**
 * flagplane as an OpenFeature provider for `@openfeature/server-sdk` (dynamic context: a
 * context per call). One client serves every call; each resolution reads a view of it for
 * the call's context (`forContext(client, context)`), so concurrent requests never share a user.
 */
export class FlagplaneServerProvider extends ProviderBase<ServerProviderEvents> implements Provider {
  readonly runsOn = 'server';

  /** Waits for the client's first snapshot; OpenFeature's global context is applied per call, not here. */
  async initialize(): Promise<void> {
    // Contexts are per call: every change heard is the snapshot's.
    await this.whenReady(() => false);
  }

  async resolveBooleanEvaluation(key: string, fallback: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    return resolveFrom.primitive(this.client, this.viewFor(context), key, fallback);
  }

  async resolveStringEvaluation(key: string, fallback: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    return resolveFrom.primitive(this.client, this.viewFor(context), key, fallback);
  }

  async resolveNumberEvaluation(key: string, fallback: number, context: EvaluationContext): Promise<ResolutionDetails<number>> {
    return resolveFrom.primitive(this.client, this.viewFor(context), key, fallback);
  }

  async resolveObjectEvaluation<T extends JsonValue>(key: string, fallback: T, context: EvaluationContext): Promise<ResolutionDetails<T>> {
    return resolveFrom.object(this.client, this.viewFor(context), key, fallback);
  }

  private viewFor(context: EvaluationContext) {
    return forContext(this.client, toFlagplaneContext(context));
  }
}
