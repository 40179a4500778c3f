/** The flagplane reference server: the data plane of protocol.md over node:http and ws. */
export { startReferenceServer } from './server';
export type { PublishableSnapshot, ReferenceServer, ReferenceServerOptions } from './server';
export { ConfigError, demoConfig, loadConfigFile, parseServerConfig } from './config';
export type { EnvironmentConfig, KeyConfig, ServerConfig } from './config';
export type {
  EnvironmentKind,
  EnvironmentRecord,
  EnvironmentStore,
  EventLog,
  IdentifyQueue,
  IdentifyRow,
  KeyKind,
  KeyRecord,
  KeyStore,
  ReferenceServerStores,
  SnapshotKv,
  StoredEvent,
  Traits,
  TraitStore,
} from './stores/stores';
export type { ErrorBody, ErrorCode } from './http/responses';
export { MissingPackageError } from './stores/optional-package';
export { EngineError } from './stores/engine-error';
export type {
  AnalyticsStore,
  ClaimedRow,
  ControlChange,
  ControlSeed,
  ControlState,
  ControlStore,
  IdentifyQueueStore,
  PublishOutcome,
} from './stores/contracts';
export { CLOSE_CODES, STREAM_PATH, STREAM_PROTOCOL } from './stream/messages';
export type { ResyncReason, ServerMessage } from './stream/messages';
