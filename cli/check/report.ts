import type { CheckResult } from './check-types';

/** One line per check: ✓ or ✗, its id, what it checks and the section; on failure, what came back. */
export function formatResult(result: CheckResult): string {
  const line = `${result.ok ? '✓' : '✗'} ${result.id}  ${result.title} (protocol.md ${result.section})`;
  return result.ok ? line : `${line}\n    got: ${result.got}`;
}

export function formatSummary(target: string, results: readonly CheckResult[]): string {
  const failed = results.filter((result) => !result.ok).length;
  return `\n${results.length - failed} passed, ${failed} failed: ${target}`;
}

/** `--json`: `{ target, passed, failed, checks: [{ id, section, ok, detail }] }`; detail says what came back on failure. */
export function formatJson(target: string, results: readonly CheckResult[]): string {
  const failed = results.filter((result) => !result.ok).length;
  const checks = results.map(({ id, section, ok, title, got }) => ({ id, section, ok, detail: ok ? title : `${title}: got ${got}` }));
  return JSON.stringify({ target, passed: results.length - failed, failed, checks }, null, 2);
}
