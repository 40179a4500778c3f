/**
 * Whether `event` is the key combination `hotkey` names (`'Alt+Shift+F'`: modifiers, then
 * one key, case-insensitive). Letters and digits match the physical key (`event.code`),
 * because Alt or Shift change `event.key` (on macOS, Alt+Shift+F types `Ï`).
 */
export function matchesHotkey(event: KeyboardEvent, hotkey: string): boolean {
  const parts = hotkey.split('+').map((part) => part.trim().toLowerCase());
  const key = parts.pop() ?? '';
  const wanted = (modifier: string) => parts.includes(modifier);
  if (event.altKey !== wanted('alt') || event.shiftKey !== wanted('shift') || event.ctrlKey !== wanted('ctrl') || event.metaKey !== wanted('meta')) return false;
  if (/^[a-z]$/.test(key)) return event.code === `Key${key.toUpperCase()}`;
  if (/^[0-9]$/.test(key)) return event.code === `Digit${key}`;
  return event.key.toLowerCase() === key;
}
