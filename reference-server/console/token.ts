/**
 * The admin token: from the URL fragment (`#token=…`, what the `npm start` banner prints),
 * else from sessionStorage, where it is kept for reloads of this tab only.
 */
const STORAGE_KEY = 'flagplane-console:admin-token';

function stored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Saves the token for this tab; `null` forgets it. */
export function saveToken(token: string | null): void {
  try {
    if (token) sessionStorage.setItem(STORAGE_KEY, token);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage blocked: the token lives as long as the page.
  }
}

/**
 * Reads the token at start-up. A token found in the fragment is saved and the fragment is
 * removed, so it does not linger in the address bar, the history or a screenshot.
 */
export function initialToken(): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromUrl = fragment.get('token');
  if (fromUrl) {
    saveToken(fromUrl);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
    return fromUrl;
  }
  return stored();
}
