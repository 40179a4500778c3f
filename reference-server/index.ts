/** The flagplane reference server: the data plane of protocol.md over node:http and ws. */
export { startReferenceServer } from './server';
export type { PublishableSnapshot, ReferenceServer, ReferenceServerOptions, ShutdownReport } from './server';
export type { RequestsDrained } from './http/http-server';
export { ConfigError, demoConfig, loadConfigFile, parseServerConfig } from './config';
export type { EnvironmentConfig, KeyConfig, ServerConfig } from './config';
export type { EnvironmentKind, IdentifyRow, KeyKind, KeyRecord, StoredEvent, StoredTraits, StoredTraits as Traits } from './stores/records';
export type { EnvironmentRecord, EnvironmentStore, SnapshotKv } from './stores/environment-store';
export type { EventLog } from './stores/event-log';
export type { IdentifyLog as IdentifyQueue } from './stores/identify-log';
export type { KeyStore } from './stores/key-store';
export type { TraitStore } from './stores/trait-store';
export type { ReferenceServerStores } from './stores/contracts';
export type { ErrorBody, ErrorCode } from './http/responses';
export { MissingPackageError } from './stores/optional-package';
export { EngineError } from './stores/engine-error';
export { DemoCredentialsError } from './demo-credentials';
export type { Exposure } from './demo-credentials';
export type { ClaimedRow } from './stores/records';
export type { InstanceEntry } from './stores/instance-registry';
export type {
  AnalyticsStore,
  ControlChange,
  ControlSeed,
  ControlState,
  ControlStore,
  IdentifyQueueStore,
  PublishOutcome,
} from './stores/contracts';
export { CLOSE_CODES, STREAM_PATH, STREAM_PROTOCOL } from './stream/messages';
export type { ResyncReason, ServerMessage } from './stream/messages';
