import { describe, expect, it, vi } from 'vitest';
import type { ChangeEvent } from '../../src/index';
import { createTestClient } from '../../testing/index';
import { targetedSnapshot } from './fixtures';

describe('close()', () => {
  it('tells the listeners once that the connection stopped, then drops them', async () => {
    const client = createTestClient({ flags: { a: 1 } });
    const events: ChangeEvent[] = [];
    client.subscribe((event) => events.push(event));
    await client.close();
    await client.close();
    expect(events).toHaveLength(1);
    expect([...events[0]!.changed]).toEqual([]);
    expect(events[0]!.status).toEqual({ status: 'ready', connection: 'stopped', source: 'bootstrap', version: 1, error: null });
    expect(client.getStatus()).toBe(events[0]!.status);
    expect(await client.ready()).toEqual({ status: 'ready', source: 'bootstrap' });
  });

  it('afterwards, reads answer as before and no change is taken, none throwing', async () => {
    const client = createTestClient({ flags: { a: 1 }, context: { userId: 'ana' } });
    client.setOverrides({ b: 2 });
    const [all, details, context] = [client.getAll(), client.getDetails('a'), client.getContext()];
    const listener = vi.fn();
    await client.close();
    client.subscribe(listener);
    client.set('a', 10);
    client.setSnapshot(targetedSnapshot(5));
    client.setContext({ userId: 'bo' });
    client.setOverrides({});
    await client.identify('cy', { plan: 'pro' });
    await client.refresh();
    await client.flush();
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(details);
    expect(client.getContext()).toBe(context);
    expect(client.get('b')).toBe(2);
    expect(client.getStatus().version).toBe(1);
    expect(listener).not.toHaveBeenCalled();
  });

  it('from inside a listener: the listeners after it hear of the close, not of the change', async () => {
    const client = createTestClient({ flags: { a: 1 } });
    const later: ChangeEvent[] = [];
    client.subscribe(() => void client.close());
    client.subscribe((event) => later.push(event));
    client.set('a', 2);
    expect(later.map(({ changed, status }) => [[...changed], status.connection])).toEqual([[[], 'stopped']]);
  });
});
