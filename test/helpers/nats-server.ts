/**
 * A real nats-server for tests: JetStream on (unless asked otherwise), bound to loopback on an ephemeral
 * port, with its own store directory. stop() and restart() keep the port and
 * the store directory, so a restarted server holds the same streams at the same
 * URL. A test file starts one in beforeAll and stops it in afterAll. With
 * `monitor`, the server also serves its HTTP monitoring endpoints (/varz, /connz).
 *
 * The JetStream tests run once per nats-server version found here
 * (describeEachNatsServer): Debian's on PATH, and the current one `.ci/run`
 * builds under .ci/.nats-server-<version>/, since appends fence differently
 * before 2.11 and from it on. LOGBOOK_TEST_NATS_SERVERS (binaries separated by
 * `:`) names them instead.
 */
import { spawnSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';

const INSTALL_HINT = 'install it with `apt-get install -y nats-server`';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where `.ci/run` builds a current nats-server: .ci/.nats-server-<version>/nats-server. */
const CI_BUILDS = join(ROOT, '.ci');

/** A nats-server executable and its version. */
export interface NatsBinary {
  readonly path: string;
  /** "2.12.15" */
  readonly version: string;
}

/** The version `path --version` reports, or null when it does not run. */
function versionOf(path: string): string | null {
  const out = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (out.error !== undefined || out.status !== 0) return null;
  return /v?(\d+\.\d+\.\d+\S*)/.exec(out.stdout)?.[1] ?? null;
}

/** Orders versions oldest first ("2.9.10" before "2.12.15"). */
function byVersion(a: NatsBinary, b: NatsBinary): number {
  const parts = (v: string): number[] => v.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a.version), parts(b.version)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

let found: NatsBinary[] | undefined;

/**
 * The nats-server binaries the JetStream tests run on, oldest first, one per
 * version: those LOGBOOK_TEST_NATS_SERVERS lists, every one of which must run;
 * else `nats-server` on PATH and every one `.ci/run` built.
 */
export function natsServers(): NatsBinary[] {
  if (found !== undefined) return found;
  const listed = process.env.LOGBOOK_TEST_NATS_SERVERS?.split(delimiter).filter((p) => p !== '');
  const candidates = listed ?? [
    'nats-server',
    ...(existsSync(CI_BUILDS)
      ? readdirSync(CI_BUILDS)
          .filter((d) => d.startsWith('.nats-server-'))
          .map((d) => join(CI_BUILDS, d, 'nats-server'))
          .filter((p) => existsSync(p))
      : []),
  ];
  const servers = new Map<string, NatsBinary>();
  for (const path of candidates) {
    const version = versionOf(path);
    if (version === null) {
      if (listed !== undefined) throw new Error(`LOGBOOK_TEST_NATS_SERVERS names ${path}, which does not run as nats-server --version`);
      continue;
    }
    if (!servers.has(version)) servers.set(version, { path, version });
  }
  found = [...servers.values()].sort(byVersion);
  return found;
}

/** The newest nats-server found here: what a test that runs on one server runs on. */
export function newestNatsServer(): NatsBinary {
  const servers = natsServers();
  if (servers.length === 0) throw new Error(`nats-server is not installed: ${INSTALL_HINT}`);
  return servers[servers.length - 1]!;
}

/** Whether a nats-server binary is found here, and the newest one's version. */
export function natsServerVersion(): string | null {
  const servers = natsServers();
  return servers.length === 0 ? null : servers[servers.length - 1]!.version;
}

/**
 * Whether the JetStream tests run here. Outside CI a missing nats-server skips
 * them with a message saying how to install it; in CI (CI=true) it is an error,
 * so a CI run can never pass by skipping them.
 */
export function natsTestsEnabled(): boolean {
  if (natsServerVersion() !== null) return true;
  if (process.env.CI === 'true') throw new Error(`nats-server is not installed but CI=true: ${INSTALL_HINT}`);
  console.warn(`skipping the JetStream tests: nats-server is not installed; ${INSTALL_HINT}`);
  return false;
}

/**
 * Declares `suite` once per nats-server found here (those `only` takes, when
 * given), each in a describe named `<name> on nats-server <version>`; skipped
 * (outside CI) when there is none. In CI a suite no server found here can run is
 * an error, so a CI run never passes by skipping it.
 */
export function describeEachNatsServer(name: string, suite: (server: NatsBinary) => void, only?: { since: string }): void {
  const servers = natsTestsEnabled() ? natsServers().filter((s) => only === undefined || byVersion(s, { path: '', version: only.since }) >= 0) : [];
  if (servers.length === 0) {
    if (only !== undefined && process.env.CI === 'true') {
      throw new Error(`${name}: no nats-server ${only.since} or newer is found here but CI=true: \`bash .ci/run\` builds one, or set LOGBOOK_TEST_NATS_SERVERS`);
    }
    if (only !== undefined) console.warn(`skipping ${name}: it needs nats-server ${only.since} or newer; \`bash .ci/run\` builds one under .ci/`);
    describe.skip(name, () => it.skip('needs nats-server', () => {}));
    return;
  }
  describe.each(servers.map((server) => [server.version, server] as const))(`${name} on nats-server %s`, (_version, server) => suite(server));
}

export interface NatsServerOptions {
  /** Serve the HTTP monitoring endpoints on an ephemeral loopback port. */
  monitor?: boolean;
  /** Run without JetStream (it is on unless this is false). */
  jetstream?: boolean;
  /** The server to run; the newest found here by default. */
  binary?: NatsBinary;
  /** More of the server's configuration (its config file syntax), such as a `jetstream { max_file_store: ... }` limit. */
  config?: string;
}

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` of the monitoring endpoints, when started with `monitor`. */
  readonly monitorUrl?: string;
  readonly storeDir: string;
  /** The nats-server it runs. */
  readonly binary: NatsBinary;
  /** The server's log so far (stderr), for failure messages. */
  log(): string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store directory. */
  restart(): Promise<void>;
  /** Stops it and removes its store directory. */
  dispose(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), 'logbook-nats-'));
  const binary = options.binary ?? newestNatsServer();
  const configFile = join(storeDir, 'server.conf');
  if (options.config !== undefined) writeFileSync(configFile, options.config);
  let proc: ChildProcess | null = null;
  let logText = '';
  /** The monitoring port: -1 (ephemeral) until the first launch reports it, then kept. */
  let monitorPort = options.monitor ? -1 : 0;

  const launch = (port: number): Promise<number> =>
    new Promise((resolvePort, reject) => {
      const args = ['-a', '127.0.0.1', '-p', String(port), ...(options.jetstream === false ? [] : ['-js', '-sd', storeDir])];
      if (monitorPort !== 0) args.push('-m', String(monitorPort));
      if (options.config !== undefined) args.push('-c', configFile);
      const child = spawn(binary.path, args, {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      proc = child;
      let seen = '';
      let listening = 0;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`nats-server ${binary.version} did not become ready in ${READY_TIMEOUT_MS} ms:\n${seen}`));
      }, READY_TIMEOUT_MS);
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        seen += chunk;
        logText += chunk;
        const m = /Listening for client connections on [^\s]*:(\d+)/.exec(seen);
        if (m) listening = Number(m[1]);
        const http = /Starting http monitor on [^\s]*:(\d+)/.exec(seen);
        if (http) monitorPort = Number(http[1]);
        if (listening && seen.includes('Server is ready')) {
          clearTimeout(timer);
          seen = '';
          resolvePort(listening);
        }
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('exit', (code, signal) => {
        if (listening === 0) {
          clearTimeout(timer);
          reject(new Error(`nats-server exited (${code ?? signal}) before it was ready:\n${seen}`));
        }
      });
    });

  const stop = async (): Promise<void> => {
    const child = proc as ChildProcess | null;
    proc = null;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        done();
      });
      child.kill('SIGTERM');
    });
  };

  const port = await launch(-1);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    ...(options.monitor ? { monitorUrl: `http://127.0.0.1:${monitorPort}` } : {}),
    storeDir,
    binary,
    log: () => logText,
    stop,
    async restart() {
      await stop();
      await launch(port);
    },
    async dispose() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/**
 * A resource for the calling test file (or describe block), started in beforeAll when the NATS tests
 * are enabled here and disposed of in afterAll; `get()` is valid inside tests.
 */
export function useStartedForFile<T extends { dispose(): Promise<void> }>(
  what: string,
  start: () => Promise<T>,
  timeoutMs?: number,
): { enabled: boolean; get: () => T } {
  const enabled = natsTestsEnabled();
  let started: T | undefined;
  beforeAll(async () => {
    if (enabled) started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.dispose();
  });
  return {
    enabled,
    get: () => {
      if (started === undefined) throw new Error(`the ${what} is not running`);
      return started;
    },
  };
}

/**
 * One server for the calling test file (or describe block): started in beforeAll
 * (when the tests are enabled here) and disposed of in afterAll. `server()` is
 * valid inside tests.
 */
export function useNatsServer(options: NatsServerOptions = {}): { enabled: boolean; server: () => NatsServer } {
  const { enabled, get } = useStartedForFile('nats-server', () => startNatsServer(options));
  return { enabled, server: get };
}

/**
 * A resource each describeEachNatsServer block starts for itself, reachable
 * from helpers at a test file's top level: `get()` is the one of the block
 * running now (blocks run one after another). `use`, called in the block,
 * makes its resource the one `get()` gives while the block runs.
 */
export function perBlock<T>(what: string): { get: () => T; use: (get: () => T) => void } {
  let current: (() => T) | undefined;
  return {
    get: () => {
      if (current === undefined) throw new Error(`no ${what} outside a describeEachNatsServer block`);
      return current();
    },
    use: (get) => {
      beforeAll(() => {
        current = get;
      });
      afterAll(() => {
        current = undefined;
      });
    },
  };
}

/** The server of each describeEachNatsServer block: `start` it in the block, reach it with `server()`. */
export function natsServerOfBlock(): { server: () => NatsServer; start: (options: NatsServerOptions & { binary: NatsBinary }) => void } {
  const block = perBlock<NatsServer>('nats-server');
  return { server: block.get, start: (options) => block.use(useNatsServer(options).server) };
}
