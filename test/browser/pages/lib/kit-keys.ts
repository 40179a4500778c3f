/** Storage names shared by the pages (no SDK import, so /other.html stays SDK-free). */
export const ERRORS_KEY = 'fp:errors';
export const LIFECYCLE_KEY = 'fp:lifecycle';
export const IDB_NAME = 'flagplane-e2e';
