export { createTestClient } from './test-client';

export type { TestClient, TestClientOptions, WidenedFlags } from './test-client';
