/**
 * A real nats-server for tests: JetStream on (unless asked otherwise), bound to loopback on an ephemeral
 * port, with its own store directory. stop() and restart() keep the port and
 * the store directory, so a restarted server holds the same streams at the same
 * URL. A test file starts one in beforeAll and stops it in afterAll. With
 * `monitor`, the server also serves its HTTP monitoring endpoints (/varz, /connz).
 */
import { spawnSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

const INSTALL_HINT = 'install it with `apt-get install -y nats-server`';

/** Whether a nats-server binary is on PATH, and its version line. */
export function natsServerVersion(): string | null {
  const out = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  if (out.error !== undefined || out.status !== 0) return null;
  return out.stdout.trim();
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

export interface NatsServerOptions {
  /** Serve the HTTP monitoring endpoints on an ephemeral loopback port. */
  monitor?: boolean;
  /** Run without JetStream (it is on unless this is false). */
  jetstream?: boolean;
}

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` of the monitoring endpoints, when started with `monitor`. */
  readonly monitorUrl?: string;
  readonly storeDir: string;
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
  let proc: ChildProcess | null = null;
  let logText = '';
  /** The monitoring port: -1 (ephemeral) until the first launch reports it, then kept. */
  let monitorPort = options.monitor ? -1 : 0;

  const launch = (port: number): Promise<number> =>
    new Promise((resolvePort, reject) => {
      const args = ['-a', '127.0.0.1', '-p', String(port), ...(options.jetstream === false ? [] : ['-js', '-sd', storeDir])];
      if (monitorPort !== 0) args.push('-m', String(monitorPort));
      const child = spawn('nats-server', args, {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      proc = child;
      let seen = '';
      let listening = 0;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`nats-server did not become ready in ${READY_TIMEOUT_MS} ms:\n${seen}`));
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
 * A resource for the calling test file, started in beforeAll when the NATS tests
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
 * One server for the calling test file: started in beforeAll (when the tests are
 * enabled here) and disposed of in afterAll. `server()` is valid inside tests.
 */
export function useNatsServer(options: NatsServerOptions = {}): { enabled: boolean; server: () => NatsServer } {
  const { enabled, get } = useStartedForFile('nats-server', () => startNatsServer(options));
  return { enabled, server: get };
}
