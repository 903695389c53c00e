/**
 * nats-servers of the suite's own: JetStream on, loopback, ephemeral port, store
 * in a temp dir. The JetStream rows are measured on every server version found
 * here, as the tests run on them: `nats-server` on PATH (Debian's 2.9) and the
 * current one `.ci/run` builds under .ci/.nats-server-<version>/, since appends
 * on 2.11 and newer fence on a run's tail instead of reading its meta back.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './env.js';

export interface BenchNats {
  url: string;
  /** The server's version line ("nats-server: v2.9.10"). */
  version: string;
  stop(): Promise<void>;
}

/** A nats-server executable and its version line. */
export interface NatsBinary {
  path: string;
  version: string;
}

function versionLine(path: string): string | null {
  const out = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return out.error === undefined && out.status === 0 ? out.stdout.trim() : null;
}

/** The nats-servers found here, one per version: PATH's first, then those .ci/run built. */
export function natsServers(): NatsBinary[] {
  const ci = join(ROOT, '.ci');
  const built = existsSync(ci)
    ? readdirSync(ci)
        .filter((d) => d.startsWith('.nats-server-'))
        .sort()
        .map((d) => join(ci, d, 'nats-server'))
    : [];
  const found = new Map<string, NatsBinary>();
  for (const path of ['nats-server', ...built]) {
    const version = versionLine(path);
    if (version !== null && !found.has(version)) found.set(version, { path, version });
  }
  return [...found.values()];
}

/** "nats-server v2.12.15" of a version line. */
export function serverName(version: string): string {
  return version.replace(/^nats-server:\s*/, 'nats-server ');
}

export function startNats(binary: NatsBinary): Promise<BenchNats> {
  const child = spawn(binary.path, ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', tempDir('nats')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = (): Promise<void> =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server did not start:\n${seen}`));
    }, 15_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      const port = /Listening for client connections on [^\s]*:(\d+)/.exec(seen)?.[1];
      if (port !== undefined && seen.includes('Server is ready')) {
        clearTimeout(timer);
        child.stderr.removeAllListeners('data').resume();
        resolve({ url: `nats://127.0.0.1:${port}`, version: binary.version, stop });
      }
    });
  });
}
