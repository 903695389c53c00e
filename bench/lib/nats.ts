/** A nats-server of the suite's own: JetStream on, loopback, ephemeral port, store in a temp dir. */
import { spawn, spawnSync } from 'node:child_process';
import { tempDir } from './env.js';

export interface BenchNats {
  url: string;
  version: string;
  stop(): Promise<void>;
}

/** The server's version line, or null when nats-server is not on PATH. */
export function natsServerVersion(): string | null {
  const out = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  return out.error === undefined && out.status === 0 ? out.stdout.trim() : null;
}

export function startNats(): Promise<BenchNats> {
  const version = natsServerVersion() ?? 'unknown';
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', tempDir('nats')], { stdio: ['ignore', 'ignore', 'pipe'] });
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
        resolve({ url: `nats://127.0.0.1:${port}`, version, stop });
      }
    });
  });
}
