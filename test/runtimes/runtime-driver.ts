/**
 * Runs scenario/scenario.mjs in another runtime (Bun, Deno, …) against a reference server on
 * a free loopback port: the built package installed in a temporary folder, the script next
 * to it, the runtime as a child process whose JSON lines a test reads step by step.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { DEMO } from '../helpers/reference-server';
import { builtPackage, type BuiltPackage } from './built-package';
import { startScenarioProcess, type ScenarioProcess } from './scenario-process';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SCENARIO = fileURLToPath(new URL('./scenario/scenario.mjs', import.meta.url));

/** How one runtime runs the scenario. */
export interface RuntimeSpec {
  /** As users call it: 'Bun', 'Deno'. */
  readonly name: string;
  /** The runtime's binary, relative to the repository (the one npm installs). */
  readonly binary: string;
  /** The arguments that run `script`; `server` is the reference server it may reach. */
  args(script: string, server: ReferenceServer): string[];
  /** Variables the runtime itself needs for one run, given a fresh folder of that run's own. */
  env?(runDir: string): NodeJS.ProcessEnv;
}

/** What a scenario run is told (scenario/scenario.mjs reads them as FLAGPLANE_* variables). */
export interface ScenarioSettings {
  /** Connect the stream and wait for a publish. @default false */
  stream?: boolean;
  /** Pass `persist: true`; otherwise the option is left to its default. @default false */
  persist?: boolean;
  /** Pass `syncTabs: true`; otherwise the option is left to its default. @default false */
  syncTabs?: boolean;
  /** Runs given the same name share the runtime's state folder (Deno's localStorage); by default each has its own. */
  stateDir?: string;
}

export type RuntimeAvailability = { kind: 'run'; version: string } | { kind: 'skip'; message: string } | { kind: 'fail'; message: string };

/**
 * Whether the runtime starts (`<binary> --version`). If not, its suite is skipped — except on
 * CI (`CI=true`), where it fails: a runtime suite that passes without its runtime proves nothing.
 */
export function runtimeAvailability(spec: RuntimeSpec, env: NodeJS.ProcessEnv = process.env): RuntimeAvailability {
  const probe = spawnSync(join(root, spec.binary), ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status === 0) return { kind: 'run', version: probe.stdout.trim().split('\n')[0]! };
  const why = probe.error ? String(probe.error) : `exit ${probe.status ?? probe.signal}: ${probe.stderr.trim().slice(0, 200)}`;
  const reinstall = `(npm install installs it: ${spec.binary} comes with the devDependencies)`;
  if (env.CI === 'true') return { kind: 'fail', message: `test/runtimes: ${spec.name} does not start (${why}), and CI=true ${reinstall}` };
  return { kind: 'skip', message: `test/runtimes: ${spec.name} does not start (${why}); skipping its suite ${reinstall}` };
}

/** What a {@link describeRuntime} body reaches from its tests. */
export interface RuntimeSuite {
  /** This test's reference server (demo config, 127.0.0.1, a free port). */
  readonly server: ReferenceServer;
  /** Starts the runtime on the scenario; whatever still runs is killed after the test. */
  run(settings?: ScenarioSettings): ScenarioProcess;
}

/** The demo client key, and where the scenario finds the server, as FLAGPLANE_* variables. */
const scenarioEnv = (server: ReferenceServer, settings: ScenarioSettings): NodeJS.ProcessEnv => ({
  FLAGPLANE_BASE_URL: server.baseUrl,
  FLAGPLANE_SDK_KEY: DEMO.prodClientKey,
  // Empty is unset for the scenario: a variable of the parent's environment must not leak in.
  FLAGPLANE_STREAM_URL: settings.stream ? server.wsUrl : '',
  FLAGPLANE_PERSIST: settings.persist ? '1' : '',
  FLAGPLANE_SYNC_TABS: settings.syncTabs ? '1' : '',
});

/**
 * `describe` for one runtime: the package built once per file into a temporary folder with
 * the scenario beside it, a reference server per test, and every process a test started
 * killed after it (then the server closed, and at the end the folder removed), even when the
 * test failed. Without the runtime the suite is skipped with one line, or fails on CI.
 */
export function describeRuntime(spec: RuntimeSpec, body: (suite: RuntimeSuite) => void): void {
  const availability = runtimeAvailability(spec);
  const title = `${spec.name} runs the built package`;
  if (availability.kind === 'fail') {
    const { message } = availability;
    describe(title, () => it(`has ${spec.name} to run on`, () => {
      throw new Error(message);
    }));
    return;
  }
  let built: BuiltPackage | undefined;
  let server: ReferenceServer | undefined;
  const processes: ScenarioProcess[] = [];
  let runs = 0;
  const suite: RuntimeSuite = {
    get server() {
      if (!server) throw new Error('no reference server yet: use it inside a test');
      return server;
    },
    run(settings = {}) {
      if (!built || !server) throw new Error('run the scenario inside a test');
      const stateDir = join(built.home, 'state', settings.stateDir ?? `run-${++runs}`);
      mkdirSync(stateDir, { recursive: true });
      const env = { ...process.env, NO_COLOR: '1', ...spec.env?.(stateDir), ...scenarioEnv(server, settings) };
      const started = startScenarioProcess(join(root, spec.binary), spec.args('./scenario.mjs', server), { cwd: built.home, env });
      processes.push(started);
      return started;
    },
  };
  if (availability.kind === 'skip') {
    // One line per run: each runtime has one test file.
    console.warn(availability.message);
    describe.skip(title, () => body(suite));
    return;
  }
  describe(`${title} (${availability.version})`, () => {
    beforeAll(async () => {
      built = await builtPackage();
      copyFileSync(SCENARIO, join(built.home, 'scenario.mjs'));
      // What an app that installed flagplane has: Deno resolves bare names only through it.
      const installed = JSON.parse(readFileSync(join(built.dir, 'package.json'), 'utf8')) as { version: string };
      const manifest = { private: true, type: 'module', dependencies: { flagplane: `^${installed.version}` } };
      writeFileSync(join(built.home, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    }, 60_000);
    afterAll(() => built?.remove());
    beforeEach(async () => {
      server = await startReferenceServer({ port: 0, host: '127.0.0.1' });
    });
    afterEach(async () => {
      await Promise.all(processes.splice(0).map((started) => started.stop()));
      await server?.close();
      server = undefined;
    });
    body(suite);
  });
}
