export { createClient } from './client';
// Server-side (a view per request; what a page starts from): functions, so that browser bundles drop them.
export { forContext } from './reads/for-context';
export { browserBootstrap } from './reads/browser-bootstrap';
export { heldSnapshot } from './reads/held-snapshot';
export { createMemoryStorage } from './storage/memory-storage';
export { fetchTransport } from './http/fetch-transport';
export { nextDelay } from './shared/backoff';
export {
  FlagplaneError,
  ConfigError,
  HttpError,
  NetworkError,
  TimeoutError,
  SchemaError,
  StorageError,
} from './shared/errors';
export { StreamError } from './stream/stream-error';
export { SUPPORTED_SCHEMA_VERSION } from './snapshot/snapshot-types';
// Pure and tree-shaken: an app that does not import it pays nothing beyond what the client uses.
export { evaluateFlag } from './evaluation/index';

export type { FlagsClient, FlagsView, ChangeEvent, KnownFlagKey, ClientOf } from './client-types';
export type { ClientOptions, FlagDefaults } from './options';
export type { ClientStatus, Readiness, ConnectionState, SnapshotSource, ReadyResult } from './machine/client-state';
export type { FlagplaneErrorCode } from './shared/errors';
export type { HttpTransport, HttpRequest, HttpResult } from './http/http-types';
export type { StorageAdapter } from './storage/storage-types';
export type { StreamTransport } from './stream/stream-transport';
export type { Scheduler } from './shared/scheduler';
export type { BackoffOptions } from './shared/backoff';
export type {
  EvaluationContext,
  EvaluationDetails,
  EvaluationReason,
  EvaluationErrorCode,
  FlagEvaluation,
} from './evaluation/evaluation-types';
export type {
  FlagSnapshot,
  Flag,
  Rule,
  Condition,
  AttributeCondition,
  AttributeOperator,
  SegmentCondition,
  Serve,
  WeightedVariation,
  JsonValue,
} from './snapshot/snapshot-types';
