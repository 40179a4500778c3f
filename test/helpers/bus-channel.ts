/**
 * An in-memory BroadcastChannel: a message goes to every other open channel of the same
 * name (in this process too, as a real one does), one macrotask later.
 */
export class BusChannel {
  static open = new Set<BusChannel>();
  onmessage: ((event: MessageEvent) => void) | null = null;
  constructor(readonly name: string) {
    BusChannel.open.add(this);
  }
  postMessage(data: unknown): void {
    const copy = structuredClone(data);
    for (const other of BusChannel.open) {
      if (other !== this && other.name === this.name) queueMicrotask(() => other.onmessage?.({ data: copy } as MessageEvent));
    }
  }
  close(): void {
    BusChannel.open.delete(this);
  }
}
