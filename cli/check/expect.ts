import { CheckFailure } from './errors';
import type { ProbeResponse } from './http-probe';
import { jsonOf } from './http-probe';

const EXCERPT = 160;

export function fail(got: string): never {
  throw new CheckFailure(got);
}

/** A response in a few words: the status, and the start of the body. */
export function describeResponse(response: ProbeResponse): string {
  const text = response.text.length > EXCERPT ? `${response.text.slice(0, EXCERPT)}…` : response.text;
  return text ? `${response.status} ${text}` : `${response.status} (no body)`;
}

export function expectStatus(response: ProbeResponse, status: number, what: string): void {
  if (response.status !== status) fail(`${what}: ${describeResponse(response)}`);
}

export function headerOf(response: ProbeResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function expectHeader(response: ProbeResponse, name: string, expected: string | RegExp, what: string): void {
  const value = headerOf(response, name);
  const ok = value !== undefined && (typeof expected === 'string' ? value === expected : expected.test(value));
  if (!ok) fail(`${what}: ${name} ${value === undefined ? 'missing' : JSON.stringify(value)}`);
}

/** Whether a comma-separated header lists `token`, case-insensitively (Vary, Expose-Headers). */
export function listsToken(response: ProbeResponse, name: string, token: string): boolean {
  const value = headerOf(response, name) ?? '';
  return value.split(',').some((entry) => entry.trim().toLowerCase() === token.toLowerCase());
}

/** §5: `{ "error": { "code", "message", "path"? } }` as JSON, with `path` when one member is at fault. */
export function expectErrorBody(response: ProbeResponse, status: number, code: string, what: string, path?: string): void {
  expectStatus(response, status, what);
  expectHeader(response, 'content-type', /^application\/json\b/i, what);
  const error = (jsonOf(response) as { error?: { code?: unknown; message?: unknown; path?: unknown } } | undefined)?.error;
  const shaped = error !== undefined && error.code === code && typeof error.message === 'string';
  if (!shaped || (path !== undefined && error.path !== path)) {
    const expected = `{ error: { code: "${code}", message${path === undefined ? '' : `, path: "${path}"`} } }`;
    fail(`${what}: expected ${expected}, got ${describeResponse(response)}`);
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
