/**
 * A plain page with one client, created from the query string (see lib/kit.ts). Reads
 * `read` (default `checkout-button-color`) right after `createClient`, before any await,
 * so a test can see what a synchronous cache served.
 */
import { createClient } from 'flagplane';
import { clientOptions, installProbes, params, recordChanges } from './lib/kit';

const fp = installProbes();
const client = createClient(clientOptions(fp));
const key = params.get('read') ?? 'checkout-button-color';
const status = client.getStatus();
fp.firstRead = { key, value: client.get(key), source: status.source, version: status.version, status: status.status };
fp.client = client;
recordChanges(fp);
void client.ready().then((result) => (fp.readyResult = result));
