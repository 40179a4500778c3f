import { useEffect } from 'react';
import type { FlagsClient } from 'flagplane';
import { useFlagsClient } from 'flagplane/react';
import { recordChanges } from './kit';
import type { PageApi } from './page-api';

/**
 * Puts the provider's client on `fp.client` (from an effect), records its changes and its
 * ready result; `first` runs with the client before any of that.
 */
export function ExposeClient({ fp, first }: { fp: PageApi; first?: (client: FlagsClient) => void }) {
  const client = useFlagsClient();
  useEffect(() => {
    first?.(client);
    fp.client = client;
    recordChanges(fp);
    void client.ready().then((result) => (fp.readyResult = result));
  }, [client]);
  return null;
}
