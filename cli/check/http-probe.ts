import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ProbeTimeoutError } from './errors';

export interface ProbeRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ProbeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request with nothing added but `Host` and `Content-Length`, so what is checked is
 * what was sent. The whole exchange, body included, must end within `timeoutMs`.
 */
export function probe(url: URL, init: ProbeRequest, timeoutMs: number): Promise<ProbeResponse> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const what = `${init.method ?? 'GET'} ${url.pathname}${url.search}`;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => request.destroy(new ProbeTimeoutError(what, timeoutMs)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(init.body);
  });
}

/** The response's body as JSON, or `undefined` when it is not JSON. */
export function jsonOf(response: ProbeResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    return undefined;
  }
}
