/** A plain page without the SDK, to navigate to: it shows what earlier pages left in storage. */
import { ERRORS_KEY, LIFECYCLE_KEY } from './lib/kit-keys';

window.other = {
  errors: JSON.parse(sessionStorage.getItem(ERRORS_KEY) ?? '[]'),
  lifecycle: JSON.parse(localStorage.getItem(LIFECYCLE_KEY) ?? '[]'),
};
