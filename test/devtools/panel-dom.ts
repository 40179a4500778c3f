/** The devtools' shadow root in the document (happy-dom). */
export const panelRoot = (): ShadowRoot => document.querySelector('flagplane-devtools')!.shadowRoot!;

/** The row of `key` in the panel. */
export const row = (key: string): HTMLElement => panelRoot().querySelector(`[data-flag-key="${key}"]`)!;

/** Types `text` into the override input of `key` and presses Enter; the row's error message after it. */
export async function overrideIn(key: string, text: string): Promise<string> {
  const input = row(key).querySelector<HTMLInputElement>('[data-role=override]')!;
  input.value = text;
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  // The panel updates in a microtask after the change.
  await Promise.resolve();
  return row(key).querySelector('[data-role=override-error]')!.textContent ?? '';
}
