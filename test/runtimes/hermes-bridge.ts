/**
 * Node as React Native's native side for an app running in the `hermes` CLI. Hermes runs as a
 * REPL (no file argument: it reads stdin), because its script mode cannot read input. After
 * each line the REPL runs the microtask queue and every *native* timer to completion, so the
 * app's timers must not be native ones: hermes-app/native.ts replaces `setTimeout` with one
 * that asks the host, as React Native's JSTimers ask its Timing module. The host arms a real
 * timer and, when it fires, sends `__native.fire(id)`; it makes each HTTP request the app's
 * transport asks for with Node's fetch, and holds each WebSocket with `ws`. The ledger of
 * what the host holds for the app (timers, requests, sockets) is what "nothing left running"
 * is checked against.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

export type Message = Record<string, unknown> & { t: string };

export interface HermesSession {
  /** Every `@@` message so far, in order. */
  readonly messages: Message[];
  /** Everything else Hermes printed (REPL echoes, uncaught errors). */
  readonly output: string[];
  /** Runs one line of JavaScript in the app. */
  run(line: string): void;
  /** The first message from now on (or from index `from` of `messages`) that matches. */
  next(predicate: (message: Message) => boolean, timeoutMs?: number, from?: number): Promise<Message>;
  /** What the host holds for the app right now. */
  ledger(): { timers: number; requests: number; sockets: number };
  /** Ends stdin and resolves with Hermes's exit code (the REPL exits once input ends). */
  exit(timeoutMs?: number): Promise<number | null>;
  /** Kills Hermes and drops everything the host holds; safe to call twice. */
  kill(): void;
}

type Call = (name: string, ...args: unknown[]) => void;

/**
 * The native side: a real timer, request or socket for each the app asks for, reported back
 * through `call`. `ledger()` counts what it holds; `drop()` ends all of it.
 */
function nativeHost(call: Call) {
  const timers = new Map<number, NodeJS.Timeout>();
  const requests = new Map<number, AbortController>();
  const sockets = new Map<number, WebSocket>();

  async function request({ id, method, url, headers, body }: Message) {
    const controller = new AbortController();
    requests.set(id as number, controller);
    try {
      const response = await fetch(url as string, { method: method as string, headers: headers as Record<string, string>, body: body as string | undefined, signal: controller.signal });
      const text = await response.text();
      const names: Record<string, string> = {};
      response.headers.forEach((value, name) => (names[name] = value));
      if (requests.delete(id as number)) call('http', id, response.status, names, text);
    } catch (error) {
      if (requests.delete(id as number)) call('httpFailed', id, (error as Error).message);
    }
  }

  function open({ id, url, protocols }: Message) {
    const socket = new WebSocket(url as string, protocols as string[]);
    sockets.set(id as number, socket);
    socket.on('open', () => call('ws', id, 'open'));
    socket.on('message', (data) => call('ws', id, 'message', data.toString()));
    socket.on('error', (error) => call('ws', id, 'error', error.message));
    socket.on('close', (code, reason) => {
      sockets.delete(id as number);
      call('ws', id, 'close', undefined, code, reason.toString());
    });
  }

  const handlers: Record<string, (message: Message) => void> = {
    timer: ({ id, ms }) => void timers.set(id as number, setTimeout(() => timers.delete(id as number) && call('fire', id), ms as number)),
    clear: ({ id }) => {
      clearTimeout(timers.get(id as number));
      timers.delete(id as number);
    },
    http: (message) => void request(message),
    abort: ({ id }) => requests.get(id as number)?.abort(),
    'ws-open': open,
    'ws-send': ({ id, data }) => sockets.get(id as number)?.send(data as string),
    'ws-close': ({ id, code, reason }) => sockets.get(id as number)?.close(code as number | undefined, reason as string | undefined),
  };

  return {
    handle: (message: Message) => handlers[message.t]?.(message),
    ledger: () => ({ timers: timers.size, requests: requests.size, sockets: sockets.size }),
    drop() {
      for (const timer of timers.values()) clearTimeout(timer);
      for (const controller of requests.values()) controller.abort();
      for (const socket of sockets.values()) socket.terminate();
      timers.clear();
      requests.clear();
      sockets.clear();
    },
  };
}

/** Resolves with the first message from index `from` on that matches, or rejects after `timeoutMs`. */
function waitForMessage(messages: Message[], waiters: Set<() => void>, describe: () => string) {
  return (predicate: (message: Message) => boolean, timeoutMs = 10_000, from = messages.length) =>
    new Promise<Message>((resolve, reject) => {
      const check = () => {
        const found = messages.slice(from).find(predicate);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no such message from Hermes in ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
}

export function startHermes(binary: string, bundle: string): HermesSession {
  const child: ChildProcessWithoutNullStreams = spawn(binary, ['-prompt=', '-prompt2=', '-Xmicrotask-queue'], { stdio: 'pipe' });
  const messages: Message[] = [];
  const output: string[] = [];
  const sent: string[] = [];
  const waiters = new Set<() => void>();
  let exited: number | null | undefined;
  let killed = false;
  const exits = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exited = code))));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));

  const run = (line: string) => {
    if (!killed && exited === undefined && child.stdin.writable) child.stdin.write(`${line}\n`);
  };
  const host = nativeHost((name, ...args) => {
    const line = `__native.${name}(${args.map((arg) => JSON.stringify(arg) ?? 'undefined').join(',')})`;
    sent.push(line.slice(0, 200));
    run(line);
  });

  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('@@')) return void output.push(line);
    const message = JSON.parse(line.slice(2)) as Message;
    host.handle(message);
    messages.push(message);
    for (const wake of [...waiters]) wake();
  });

  // Code with newlines or a `//` comment cannot be typed into a REPL line by line: one eval.
  run(`eval(${JSON.stringify(bundle)})`);

  const describe = () => `last: ${JSON.stringify(messages.slice(-5))}; output: ${output.slice(-5).join(' | ')}; host sent: ${sent.slice(-5).join(' | ')}`;
  return {
    messages,
    output,
    run,
    ledger: host.ledger,
    next: waitForMessage(messages, waiters, describe),
    async exit(timeoutMs = 5_000) {
      child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('hermes did not exit after its input ended')), timeoutMs)));
      try {
        return await Promise.race([exits, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      // First: closing a socket calls back, and nothing may be written to a dead Hermes.
      killed = true;
      host.drop();
      if (exited === undefined) child.kill('SIGKILL');
    },
  };
}
