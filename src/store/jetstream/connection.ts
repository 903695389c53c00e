/**
 * One NATS connection per store, dialled once at construction and shared by
 * every read and append the store makes, so a command dials once. The NATS
 * client is imported here, lazily, so merely importing the store (or the
 * package's API) never loads it.
 *
 * Every wait is bounded: requests by `timeoutMs`, and while the connection is
 * down an operation waits at most `timeoutMs` for it to come back before failing
 * with `unavailable`. The client keeps reconnecting in the background, to every
 * server the URL lists and every one the cluster tells it of. Waiting through a
 * stream leader election is election.ts's, which reports its waits here.
 */
import { readFileSync } from 'node:fs';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { LogbookError, redactUrlCredentials } from '../../core/index.js';
import type { NatsSettings, WaitListener } from '../backend.js';

export const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The servers of a `nats.url`: one URL, or several separated by commas. The
 * client takes several as a list (a single string is one server), and tries
 * each in turn when it connects and reconnects.
 */
export function serverList(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Who a client says it is: a user and password, or a token. */
export type UrlAuth = { user: string; pass: string } | { token: string };

/**
 * The credentials the servers' URLs name (`nats://user:password@host`,
 * `nats://token@host`), since the NATS client reads none from a URL; null when
 * none names any. Servers naming different ones are refused: a client sends one.
 */
export function urlAuth(url: string): UrlAuth | null {
  const found = new Map<string, UrlAuth>();
  for (const server of serverList(url)) {
    let parsed: URL;
    try {
      parsed = new URL(server.includes('://') ? server : `nats://${server}`);
    } catch {
      continue; // the client names a URL it cannot read
    }
    if (parsed.username === '' && parsed.password === '') continue;
    const user = decodeURIComponent(parsed.username);
    const auth: UrlAuth = parsed.password === '' && !server.includes(`${parsed.username}:@`) ? { token: user } : { user, pass: decodeURIComponent(parsed.password) };
    found.set(JSON.stringify(auth), auth);
  }
  if (found.size > 1) {
    throw new LogbookError('config', `the servers of nats.url name different credentials (${redactUrlCredentials(url)}): a client sends one; name them once, the same in every URL`);
  }
  return found.values().next().value ?? null;
}

/** "the NATS server at URL" or "the NATS servers at A, B", for messages. */
export function serversPhrase(url: string): string {
  const servers = serverList(url);
  return servers.length > 1 ? `the NATS servers at ${servers.join(', ')}` : `the NATS server at ${url}`;
}

/** The first server version whose publish fence can name a wildcard subject. */
const TAIL_FENCE_SINCE: readonly [number, number] = [2, 11];

/** The refusal for a server that does not serve JetStream at all. */
export function jetStreamOff(url: string, cause?: unknown): LogbookError {
  return unavailable(`JetStream is not enabled at ${url}: run nats-server with -js (and -sd DIR for its store)`, cause);
}

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

/** A JetStream connection as logbook uses it: its clients, whether it is up, and the leader-election wait of its requests. */
export class Link {
  private up = true;
  private readonly listeners = new Set<() => void>();
  /** Operations waiting through an election right now; the listener hears of the first and the last. */
  private waiting = 0;
  /** Until when a stream this link uses is taken to be electing (or just done electing) a leader. */
  private electingUntil = 0;

  constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    /** The `nats.url` as messages quote it: without the credentials it may hold. */
    readonly url: string,
    readonly timeoutMs: number,
    /** How long an operation waits through a stream leader election (election.ts). */
    readonly leaderWaitMs: number,
    private readonly onWait: WaitListener = () => {},
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

  /** Whether the connection is up now. */
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
  onDrop(): {
    dropped: Promise<void>;
    /** Stops listening for the drop. */
    cancel: () => void;
  } {
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
    if (this.connected) return;
    const endWait = this.beginWait(`waiting for ${serversPhrase(this.url)}`);
    const up = await this.whenConnected().finally(endWait);
    if (!up) {
      const servers = serversPhrase(this.url);
      throw unavailable(`${what}: ${servers} ${serverList(this.url).length > 1 ? 'are' : 'is'} unreachable (waited ${this.timeoutMs} ms)`);
    }
  }

  /** Tells the wait listener that one more operation waits for `what`; the returned function ends that wait. */
  beginWait(what: string): () => void {
    if (this.waiting++ === 0) this.onWait(what);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.waiting === 0) this.onWait(null);
    };
  }

  /** Notes that a stream had no leader just now: for a while every request expects it may not be answered. */
  noteElection(): void {
    this.electingUntil = Date.now() + this.leaderWaitMs;
  }

  /** Whether a stream had no leader within the last leader wait. */
  get electing(): boolean {
    return Date.now() < this.electingUntil;
  }

  /** Maps a client error to `unavailable`, naming the operation. */
  failure(what: string, err: unknown): LogbookError {
    if (err instanceof LogbookError) return err;
    const name = (err as Error | undefined)?.name;
    const message = redactUrlCredentials((err as Error | undefined)?.message ?? String(err));
    if (name === 'TimeoutError') return unavailable(`${what}: NATS at ${this.url} did not answer within ${this.timeoutMs} ms`, err);
    if (name === 'JetStreamNotEnabled') {
      return unavailable(`${what}: JetStream does not answer at ${this.url} (${message}); check that the server runs with -js`, err);
    }
    return unavailable(`${what}: ${message}`, err);
  }

  /** Closes the connection (once; closing a closed one does nothing). */
  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

export interface DialOptions {
  timeoutMs?: number;
  /** How long an operation waits through a stream leader election. */
  leaderWaitMs: number;
  onWait?: WaitListener;
}

/**
 * A core NATS connection with the config's settings (its servers, its creds),
 * reconnecting for ever in the background; fails with `unavailable` naming the
 * URL (never its credentials). The journal store and the agents over NATS
 * (src/a2a) both dial here.
 */
export async function connectNats(settings: NatsSettings, timeoutMs: number = DEFAULT_TIMEOUT_MS): Promise<NatsConnection> {
  const shown = redactUrlCredentials(settings.url);
  const { connect, credsAuthenticator } = await import('@nats-io/transport-node');
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
  const auth = urlAuth(settings.url);
  if (auth !== null && authenticator !== undefined) {
    throw new LogbookError('config', `nats.url names credentials and nats.creds names a credentials file (${settings.creds}): a client sends one; drop one of them`);
  }
  try {
    return await connect({
      servers: serverList(settings.url),
      timeout: timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Every request (an append's publish, a note's put, an event's publish) would otherwise make two errors up front,
      // each capturing a stack, to have a timeout's trace name where it was sent; logbook's errors name that themselves.
      noAsyncTraces: true,
      ...(authenticator ? { authenticator } : {}),
      ...(auth ?? {}),
    });
  } catch (err) {
    throw unavailable(`cannot connect to NATS at ${shown}: ${redactUrlCredentials((err as Error).message)}; is nats-server running there?`, err);
  }
}

/** Dials NATS with the config's settings; fails with `unavailable` naming the URL (never its credentials). */
export async function dial(settings: NatsSettings, options: DialOptions): Promise<Link> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const shown = redactUrlCredentials(settings.url);
  const why = (err: unknown): string => redactUrlCredentials((err as Error).message);
  const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connectNats(settings, timeoutMs);
  try {
    // No account-info round trip here: in a cluster only the meta leader answers
    // it, so it fails while one is elected. The backend's first stream request,
    // which waits through elections, finds out whether JetStream answers at all.
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs, checkAPI: false });
    return new Link(nc, jetstream(nc, { timeout: timeoutMs }), jsm, shown, timeoutMs, options.leaderWaitMs, options.onWait);
  } catch (err) {
    await nc.close().catch(() => {});
    throw unavailable(`cannot use JetStream at ${shown}: ${why(err)}`, err);
  }
}
