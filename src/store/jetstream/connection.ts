/**
 * One NATS connection per store, dialled once at construction and shared by
 * every read and append the store makes, so a command dials once. The NATS
 * client is imported here, lazily, so merely importing the store (or the
 * package's API) never loads it.
 *
 * Every wait is bounded: requests by `timeoutMs`, and while the connection is
 * down an operation waits at most `timeoutMs` for it to come back before failing
 * with `unavailable`. The client keeps reconnecting in the background.
 */
import { readFileSync } from 'node:fs';
import type { JetStreamApiCodes, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { LogbookError } from '../../core/index.js';
import type { NatsSettings } from '../backend.js';

export const DEFAULT_TIMEOUT_MS = 5_000;

/** The first server version whose publish fence can name a wildcard subject. */
const TAIL_FENCE_SINCE: readonly [number, number] = [2, 11];

export function unavailable(message: string, cause?: unknown): LogbookError {
  return new LogbookError('unavailable', message, cause === undefined ? undefined : { cause });
}

/** True when `version` (e.g. "2.11.3") is at least 2.11. */
export function supportsTailFence(version: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (m === null) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > TAIL_FENCE_SINCE[0] || (major === TAIL_FENCE_SINCE[0] && minor >= TAIL_FENCE_SINCE[1]);
}

export class Link {
  private up = true;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly url: string,
    readonly timeoutMs: number,
    /** The client's names for the API's error codes. */
    readonly apiCodes: typeof JetStreamApiCodes,
  ) {
    void this.watch();
  }

  private async watch(): Promise<void> {
    try {
      for await (const s of this.nc.status()) {
        if (s.type === 'disconnect') this.up = false;
        else if (s.type === 'reconnect') this.up = true;
        else continue;
        this.notify();
      }
    } finally {
      this.up = false;
      this.notify();
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  get connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  /** The version of the server this connection is on now (it may change on reconnect). */
  get serverVersion(): string {
    return this.nc.info?.version ?? 'unknown';
  }

  /** The largest message the server takes, in bytes (0 when unknown). */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 0;
  }

  /** Whether appends can fence on a run's whole tail (server 2.11 and newer). */
  get tailFence(): boolean {
    return supportsTailFence(this.nc.info?.version);
  }

  /** A promise that settles when the connection drops; cancel() when no longer needed. */
  onDrop(): { dropped: Promise<void>; cancel: () => void } {
    let listener = (): void => {};
    const dropped = new Promise<void>((resolve) => {
      listener = () => {
        if (!this.connected) resolve();
      };
    });
    this.listeners.add(listener);
    if (!this.connected) listener();
    return { dropped, cancel: () => this.listeners.delete(listener) };
  }

  /** Waits at most timeoutMs for the connection to be up; true when it is. */
  async whenConnected(): Promise<boolean> {
    if (this.connected) return true;
    if (this.nc.isClosed()) return false;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(ok);
      };
      const listener = (): void => {
        if (this.connected) done(true);
        else if (this.nc.isClosed()) done(false);
      };
      const timer = setTimeout(() => done(this.connected), this.timeoutMs);
      this.listeners.add(listener);
    });
  }

  /** Fails with `unavailable` when the connection does not come back in time. */
  async ensureConnected(what: string): Promise<void> {
    if (!(await this.whenConnected())) {
      throw unavailable(`${what}: the NATS server at ${this.url} is unreachable (waited ${this.timeoutMs} ms)`);
    }
  }

  /** Maps a client error to `unavailable`, naming the operation. */
  failure(what: string, err: unknown): LogbookError {
    if (err instanceof LogbookError) return err;
    const name = (err as Error | undefined)?.name;
    const message = (err as Error | undefined)?.message ?? String(err);
    if (name === 'TimeoutError') return unavailable(`${what}: NATS at ${this.url} did not answer within ${this.timeoutMs} ms`, err);
    if (name === 'JetStreamNotEnabled') {
      return unavailable(`${what}: no stream answered at ${this.url} (${message}); check that the stream still exists and the server runs with -js`, err);
    }
    return unavailable(`${what}: ${message}`, err);
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

/** Dials NATS with the config's settings; fails with `unavailable` naming the URL. */
export async function dial(settings: NatsSettings, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Link> {
  const { connect, credsAuthenticator } = await import('@nats-io/transport-node');
  const { jetstream, jetstreamManager, JetStreamApiCodes } = await import('@nats-io/jetstream');
  let authenticator;
  if (settings.creds !== undefined && settings.creds !== '') {
    let creds: Uint8Array;
    try {
      creds = new Uint8Array(readFileSync(settings.creds));
    } catch (err) {
      throw new LogbookError('config', `cannot read the NATS credentials file ${settings.creds}: ${(err as Error).message}`, { cause: err });
    }
    authenticator = credsAuthenticator(creds);
  }
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: settings.url,
      timeout: timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      ...(authenticator ? { authenticator } : {}),
    });
  } catch (err) {
    throw unavailable(`cannot connect to NATS at ${settings.url}: ${(err as Error).message}; is nats-server running there?`, err);
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    return new Link(nc, jetstream(nc, { timeout: timeoutMs }), jsm, settings.url, timeoutMs, JetStreamApiCodes);
  } catch (err) {
    await nc.close().catch(() => {});
    const name = (err as Error).name;
    if (name === 'JetStreamNotEnabled') {
      throw unavailable(`JetStream is not enabled at ${settings.url}: run nats-server with -js (and -sd DIR for its store)`, err);
    }
    throw unavailable(`cannot use JetStream at ${settings.url}: ${(err as Error).message}`, err);
  }
}
