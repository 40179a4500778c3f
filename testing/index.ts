export { createTestClient } from './test-client';

export type { TestClient, TestClientOptions, TestClientOf, SomeFlags, WidenedFlags } from './test-client';
