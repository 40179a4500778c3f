import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { checkSnapshot } from '../../src/snapshot/snapshot-parse';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { typesOfSnapshot } from './types-of-snapshot';

/** Where `runTypes` writes: the module (without `--out`) to `out`, messages to `err`. */
export interface TypesIo {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage: flagplane types (--snapshot <file> | --base-url <url> --key <sdk key>) [--out <file>]

Writes a TypeScript module declaring the environment's flags, for createClient<Flags>(…):
  --snapshot <file>   a FlagSnapshot (schema 1) saved as JSON: every flag in it
  --base-url <url>    the data plane's origin: fetches GET /sdk/v1/snapshot with --key,
                      and declares the flags that key is served (a client key: client-side ones)
  --key <sdk key>     svc_sdk_client_… or svc_sdk_server_…
  --out <file>        write the module there instead of to standard output
`;

/** A failure to report, with the exit code: 2 for a usage mistake, 1 for anything else. */
class Failure extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2,
  ) {
    super(message);
  }
}

/** The snapshot of the file or the data plane the options name. */
async function loadSnapshot(values: { snapshot?: string | undefined; 'base-url'?: string | undefined; key?: string | undefined }): Promise<FlagSnapshot> {
  const { snapshot: file, 'base-url': baseUrl, key } = values;
  if (!file === !baseUrl) throw new Failure('give either --snapshot or --base-url', 2);
  if (baseUrl && !key) throw new Failure('--base-url needs --key', 2);
  if (baseUrl && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(baseUrl)) throw new Failure(`--base-url must be http(s)://host[/path] (got ${JSON.stringify(baseUrl)})`, 2);
  const url = baseUrl && `${baseUrl.replace(/\/+$/, '')}/sdk/v1/snapshot`;
  const text = url ? await fetchText(url, key!) : await readFile(file!, 'utf8').catch((cause: Error) => Promise.reject(new Failure(`cannot read ${file}: ${cause.message}`, 1)));
  const origin = url ? `GET ${url}` : file!;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Failure(`${origin}: not JSON`, 1);
  }
  const checked = checkSnapshot(value, origin);
  if (checked.kind === 'invalid') throw new Failure(checked.error.message, 1);
  return checked.snapshot;
}

/** The body of GET `url` with `key` as bearer token; a status other than 200 is a failure. */
async function fetchText(url: string, key: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
  } catch (cause) {
    throw new Failure(`GET ${url} failed: ${(cause as Error).message}`, 1);
  }
  if (response.status !== 200) throw new Failure(`GET ${url} answered ${response.status}${response.status === 401 || response.status === 403 ? ' (is the key right?)' : ''}`, 1);
  return response.text();
}

/**
 * `flagplane types`: writes the module declaring the flags of a snapshot file or of what a
 * key is served, to `--out` or to `io.out`. Resolves with the exit code: 0 when written, 1
 * when the snapshot could not be read, fetched or written, 2 for a usage mistake.
 */
export async function runTypes(argv: string[], io: TypesIo): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { snapshot: { type: 'string' }, 'base-url': { type: 'string' }, key: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const snapshot = await loadSnapshot(values);
    const module = typesOfSnapshot(snapshot);
    if (!values.out) {
      io.out(module);
      return 0;
    }
    await writeFile(values.out, module).catch((cause: Error) => Promise.reject(new Failure(`cannot write ${values.out}: ${cause.message}`, 1)));
    io.err(`flagplane types: ${Object.keys(snapshot.flags).length} flags of environment ${JSON.stringify(snapshot.environmentId)} written to ${values.out}\n`);
    return 0;
  } catch (error) {
    // parseArgs throws a TypeError with an ERR_PARSE_ARGS_ code for an unknown or incomplete option.
    const usage = String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    const failure = error instanceof Failure ? error : new Failure((error as Error).message, usage ? 2 : 1);
    io.err(`flagplane types: ${failure.message}\n${failure.code === 2 ? `\n${USAGE}` : ''}`);
    return failure.code;
  }
}
