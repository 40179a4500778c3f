import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { RouteError } from './responses';

/** The client went away before its body arrived: not a server fault, so never reported. */
export class RequestAbortedError extends Error {
  override readonly name = 'RequestAbortedError';
  constructor(options?: { cause?: unknown }) {
    super('the client disconnected before the request body arrived', options);
  }
}

function tooLarge(limit: number): RouteError {
  return new RouteError(413, 'payload_too_large', `the body exceeds the limit of ${limit} bytes`);
}

/**
 * Reads the whole body, failing with 413 as soon as it passes `limit`. The rest of an
 * oversized body is still read and discarded so that the 413 reaches the client.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) settle(() => reject(tooLarge(limit)));
      else chunks.push(chunk);
    });
    req.on('end', () => settle(() => resolve(Buffer.concat(chunks))));
    req.on('error', (cause) => settle(() => reject(new RequestAbortedError({ cause }))));
    req.on('close', () => settle(() => reject(new RequestAbortedError())));
  });
}

/** `application/json`, with or without parameters such as `charset`. */
export function isJsonContentType(headers: IncomingHttpHeaders): boolean {
  const mediaType = headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

// Fatal: a byte sequence that is not UTF-8 is refused, never stored as U+FFFD (protocol.md §5).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new RouteError(400, 'invalid_json', 'the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RouteError(400, 'invalid_json', `the body is not JSON: ${(error as Error).message}`);
  }
}
