// GET over node:http, which adds no Accept-Encoding and decodes nothing: what is checked is
// the bytes the server sent.
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it crossed the wire. */
  body: Buffer;
}

/** One request on a connection of its own (closed after the answer), with exactly `headers`. */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${baseUrl}${path}`, { method, headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The body decoded per its Content-Encoding. */
export function decoded(answer: RawAnswer): Buffer {
  const coding = answer.headers['content-encoding'];
  if (coding === undefined) return answer.body;
  if (coding === 'br') return brotliDecompressSync(answer.body);
  if (coding === 'gzip') return gunzipSync(answer.body);
  throw new Error(`unexpected Content-Encoding ${coding}`);
}

/** A snapshot of `count` flags like an experiment program's: country rules and 50/50 rollouts; every other one client-side. */
export function experimentSnapshot(count: number, tag = 'a') {
  const flags: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    flags[`experiment-${tag}-${i}`] = {
      on: true,
      variations: ['control', 'treatment'],
      offVariation: 0,
      rules: [
        { id: 'eu', conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: ['FR', 'DE', 'ES', 'IT'] }], serve: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] } },
      ],
      fallthrough: { variation: 0 },
      salt: `salt-${tag}-${i}`,
      clientSide: i % 2 === 0,
    };
  }
  return { schemaVersion: 1, flags };
}
