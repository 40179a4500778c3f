/** A Server-Sent Event as the change feed sends them: a name and its `data`. */
export interface FeedEvent {
  event: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (what the change feed uses of the WHATWG rules: `event:`,
 * `data:`, comments, a blank line ends an event; lines end with LF or CRLF). `push` takes any slice of the stream, however cut.
 */
export function createSseReader(onEvent: (event: FeedEvent) => void) {
  let buffered = '';
  let event = '';
  let data: string[] = [];
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  };
  return {
    push(chunk: string): void {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop() ?? '';
      for (const text of lines) line(text.endsWith('\r') ? text.slice(0, -1) : text);
    },
  };
}
