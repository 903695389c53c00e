/**
 * The web view's HTTP server (node:http), on 127.0.0.1 only. Every request
 * must carry the token printed with the address (`?token=` or the
 * X-Logbook-Token header) and name this server as its Host (no DNS
 * rebinding); a request that changes anything must carry the token in the
 * header, which no page of another origin can set, and send JSON. Every
 * response has a content security policy that lets the page load its own
 * script and style and reach this server, and nothing else, nor be framed.
 *
 * The page (web/ui in the package) is static; what it shows comes from the
 * JSON API below, every journal string in it sanitized, and is set as text.
 */
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PriceBook } from '../../agent/prices.js';
import type { LogbookConfig } from '../../config/config.js';
import { isLogbookError, isValidId, LogbookError } from '../../core/index.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import type { StoreFlags } from '../store.js';
import { Continuations, type Answer } from './answer.js';
import { followLive, followRun, ListPoller, type LiveView } from './follow.js';
import { callDescriber, RunsList, snapshot, viewInput, viewOf, type RunSnapshot } from './runs.js';
import { lastWindow, ViewDiff, WINDOW, windowBefore } from './view-diff.js';
import { timelineView, transcriptView } from '../../render/run-view.js';

/** The page's own files, served from the package. */
const ASSETS = new URL('../../../web/ui/', import.meta.url);
const FILES: Record<string, { file: string; type: string }> = {
  'app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  'icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
};

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** How often an open event stream says it is still there. */
const HEARTBEAT_MS = 15_000;
/** The largest request body taken (an answer is a few hundred bytes). */
const MAX_BODY = 64 * 1024;

export interface UiOptions {
  store: Store;
  /** The config, when there is one: a call's command line, and what continuing a run needs. */
  config: LogbookConfig | undefined;
  environment: Environment;
  /** --config and --state-dir as given: a continuation opens the store the ui does. */
  flags: StoreFlags;
  /** 0 for a port the system picks. */
  port: number;
  /** The directory the ui was started in: the runs started there are listed first. */
  cwd: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown): void => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

/** An HTTP status for a refusal of the store or the journal rules. */
function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (!isLogbookError(err)) return 500;
  switch (err.code) {
    case 'not_found':
      return 404;
    case 'invalid_id':
    case 'usage':
    case 'config':
      return 400;
    case 'locked':
    case 'unknown_call':
    case 'already_completed':
      return 409;
    default:
      return 500;
  }
}

export class UiServer {
  private readonly token = randomBytes(24).toString('base64url'); // 192 bits
  private readonly poller: ListPoller;
  private readonly runs: RunsList;
  private readonly continuations: Continuations;
  private readonly describe: (name: string, inputJson: string) => string | undefined;
  /** Open event streams, closed at shutdown. */
  private readonly streams = new Set<{ stop: () => void }>();
  /** The pages following each run: told when its continuation's output changes, and the run as each holds it. */
  private readonly followers = new Map<string, Set<{ tell: () => void; run: () => RunSnapshot | null }>>();
  private readonly page: string;
  /** The prices of the config at hand (over the price table), read when a page first asks what a run spent. */
  private prices: Promise<PriceBook> | null = null;
  private port = 0;

  private constructor(
    private readonly server: Server,
    private readonly options: UiOptions,
  ) {
    this.poller = new ListPoller(options.store);
    this.runs = new RunsList(options.store, options.cwd);
    this.describe = callDescriber(options.config, options.environment.env);
    // A continuation runs with the very config the ui read, against the store it shows.
    const flags = { ...options.flags, ...(options.config !== undefined ? { config: options.config.path } : {}) };
    this.continuations = new Continuations(options.store, options.environment, flags, (id) => {
      for (const follower of this.followers.get(id) ?? []) follower.tell();
    });
    // The token is base64url: safe in a URL and in the page as it stands.
    this.page = readFileSync(new URL('index.html', ASSETS), 'utf8').replaceAll('__TOKEN__', this.token);
  }

  static async start(options: UiOptions): Promise<UiServer> {
    const server = createServer();
    const ui = new UiServer(server, options);
    server.on('request', (req, res) => void ui.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE'
            ? new LogbookError('usage', `port ${options.port} on 127.0.0.1 is taken; pick another with --port, or leave it out for a free one`)
            : new LogbookError('io', `cannot listen on 127.0.0.1:${options.port}: ${err.message}`, { cause: err }),
        ),
      );
      server.listen(options.port, '127.0.0.1', () => resolve());
    });
    ui.port = (server.address() as AddressInfo).port;
    // The first listing starts with the server: the page's first load shares it.
    ui.runs.list().catch(() => {});
    return ui;
  }

  /** The page's address, token included: what `logbook ui` prints. */
  get url(): string {
    return `${this.origin}/?token=${this.token}`;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Whether `given` is this server's token, compared in constant time. */
  private tokenMatches(given: string | null | undefined): boolean {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const host = req.headers.host ?? '';
      if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) throw new HttpError(421, 'this server answers to 127.0.0.1 only');
      const url = new URL(req.url ?? '/', this.origin);
      const header = req.headers['x-logbook-token'];
      if (!this.tokenMatches(url.searchParams.get('token')) && !this.tokenMatches(Array.isArray(header) ? header[0] : header)) {
        throw new HttpError(401, 'this page needs its token: open the address `logbook ui` printed');
      }
      await this.route(req, res, url);
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      const status = statusOf(err);
      const message = status === 500 && !isLogbookError(err) ? 'unexpected error' : (err as Error).message;
      if (req.url?.startsWith('/api/')) sendJson(res, status, { error: message, ...(isLogbookError(err) ? { code: err.code } : {}) });
      else send(res, status, 'text/plain; charset=utf-8', `logbook ui: ${message}\n`);
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const runPath = /^\/api\/runs\/([^/]+)(\/events|\/answer|\/transcript|\/timeline|\/facts|\/changes|\/changes\/\d+)?$/.exec(path);
    if (method === 'POST') {
      if (runPath === null || runPath[2] !== '/answer') throw new HttpError(404, `no ${path}`);
      return this.answer(req, res, runId(runPath[1]!));
    }
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `${method} is not served`);
    if (path === '/' || /^\/runs\/[^/]+$/.test(path)) return send(res, 200, 'text/html; charset=utf-8', this.page);
    const asset = /^\/assets\/([a-z.]+)$/.exec(path)?.[1];
    if (asset !== undefined && FILES[asset] !== undefined) return send(res, 200, FILES[asset].type, readFileSync(new URL(FILES[asset].file, ASSETS)));
    if (path === '/api/runs') return sendJson(res, 200, { location: this.options.store.location, runs: await this.runs.list() });
    if (path === '/api/runs/events') return this.listEvents(req, res);
    if (runPath !== null && runPath[2] === undefined) return sendJson(res, 200, this.viewWith(await snapshot(this.options.store, runId(runPath[1]!))));
    if (runPath !== null && runPath[2] === '/events') return this.runEvents(req, res, runId(runPath[1]!));
    if (runPath !== null && (runPath[2] === '/transcript' || runPath[2] === '/timeline')) return this.earlier(res, runId(runPath[1]!), runPath[2], url);
    if (runPath !== null && runPath[2] === '/facts') return sendJson(res, 200, await this.facts(runId(runPath[1]!)));
    if (runPath !== null && runPath[2]?.startsWith('/changes')) return sendJson(res, 200, await this.changes(runId(runPath[1]!), runPath[2], url));
    throw new HttpError(404, `no ${path}`);
  }

  /** A run's view as a page opens on it (its last window), with this ui's continuation of it. */
  private viewWith(run: RunSnapshot): unknown {
    const view = { ...viewOf(run, this.describe, lastWindow(run)), ...this.pageFacts() };
    const continuation = this.continuations.of(run.state.run_id);
    return continuation === undefined ? view : { ...view, continuation };
  }

  /** What the page needs to know of this ui. Without a config it cannot continue a run: the page says how to answer it instead. */
  private pageFacts(): { location: string; answerable: boolean } {
    return { location: this.options.store.location, answerable: this.options.config !== undefined };
  }

  /** Run `id` as the pages following it hold it, else as the store holds it now. */
  private async current(id: string): Promise<RunSnapshot> {
    for (const follower of this.followers.get(id) ?? []) {
      const run = follower.run();
      if (run !== null) return run;
    }
    return snapshot(this.options.store, id);
  }

  /** What a run's page says beside its records (facts.ts): its spend, compactions and conversation. */
  private async facts(id: string): Promise<unknown> {
    const run = await this.current(id);
    const [{ runPageFacts }, { pricesAtHand }] = await Promise.all([import('./facts.js'), import('../../api/long-run-facts.js')]);
    this.prices ??= pricesAtHand(this.options.config, this.options.environment.env);
    await this.runs.list(this.poller.last ?? undefined);
    return runPageFacts(this.options.store, run, await this.runs.runs(), await this.prices);
  }

  /**
   * A run's workspace changes (changes.ts): the window before `?before=K` (the
   * last without it), or span K with its diff (`/changes/K`), as `session diff` finds them.
   */
  private async changes(id: string, part: string, url: URL): Promise<unknown> {
    const { pageChanges, pageSpanDiff } = await import('./changes.js');
    const path = this.options.environment.env.PATH;
    const searchPath = path !== undefined && path !== '' ? path : undefined;
    const index = /^\/changes\/(\d+)$/.exec(part)?.[1];
    if (index !== undefined) return pageSpanDiff(this.options.store, id, Number(index), searchPath);
    const given = url.searchParams.get('before');
    const before = given === null ? undefined : Number(given);
    if (before !== undefined && (!Number.isSafeInteger(before) || before < 0)) throw new HttpError(400, 'before is a change index');
    return pageChanges(this.options.store, id, before, searchPath);
  }

  /**
   * A part of a run's transcript or timeline before the one a page holds
   * (`?before=K`, a message index or a record seq), as the run stands for the
   * pages following it (read afresh when none is).
   */
  private async earlier(res: ServerResponse, id: string, part: '/transcript' | '/timeline', url: URL): Promise<void> {
    const before = Number(url.searchParams.get('before'));
    if (!Number.isSafeInteger(before) || before < 0) throw new HttpError(400, 'before is a message index or a record seq');
    const input = viewInput(await this.current(id), this.describe);
    if (part === '/transcript') {
      const range = windowBefore(before, WINDOW.messages, 0);
      return sendJson(res, 200, { from: range.from, groups: transcriptView(input, range) });
    }
    const range = windowBefore(before, WINDOW.records, 1);
    return sendJson(res, 200, { from: range.from, entries: timelineView(input, range).entries });
  }

  /** An event stream: `event` lines with JSON data; the stop function ends it. */
  private eventStream(req: IncomingMessage, res: ServerResponse): { emit: (event: string, data: unknown) => void; signal: AbortSignal; stop: () => void } {
    res.on('error', () => {}); // a page gone mid-write: the stream stops at its close
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write(': logbook\n\n');
    const controller = new AbortController();
    const last = new Map<string, string>();
    const beat = setInterval(() => res.write(': still here\n\n'), HEARTBEAT_MS);
    const stream = {
      emit: (event: string, data: unknown): void => {
        if (controller.signal.aborted) return; // the page went away
        const json = JSON.stringify(data);
        if (json === last.get(event)) return;
        last.set(event, json);
        res.write(`event: ${event}\ndata: ${json}\n\n`);
      },
      signal: controller.signal,
      stop: (): void => {
        clearInterval(beat);
        controller.abort();
        this.streams.delete(stream);
        res.end();
      },
    };
    this.streams.add(stream);
    req.on('close', stream.stop);
    return stream;
  }

  private listEvents(req: IncomingMessage, res: ServerResponse): void {
    const stream = this.eventStream(req, res);
    let busy = false;
    const unsubscribe = this.poller.subscribe((runs) => {
      if (busy) return;
      busy = true;
      this.runs
        .list(runs)
        .then((listed) => stream.emit('runs', { location: this.options.store.location, runs: listed }))
        .catch(() => {})
        .finally(() => (busy = false));
    });
    stream.signal.addEventListener('abort', unsubscribe, { once: true });
  }

  /**
   * A run's page follows it: `head`, `transcript` and `timeline` events, each
   * only when it changed and with only what changed (view-diff.ts),
   * `continuation` for this ui's continuation of the run, and `live` for the
   * answer streaming now (never journaled; null once cleared or replaced by
   * its record).
   */
  private runEvents(req: IncomingMessage, res: ServerResponse, id: string): void {
    const stream = this.eventStream(req, res);
    const diff = new ViewDiff();
    let current: RunSnapshot | null = null;
    stream.emit('page', this.pageFacts());
    const follower = { tell: () => stream.emit('continuation', this.continuations.of(id) ?? null), run: () => current };
    const followers = this.followers.get(id) ?? new Set();
    followers.add(follower);
    this.followers.set(id, followers);
    follower.tell();
    stream.signal.addEventListener(
      'abort',
      () => {
        followers.delete(follower);
        if (followers.size === 0) this.followers.delete(id);
      },
      { once: true },
    );
    let live: LiveView | null = null;
    const showLive = (next: LiveView | null): void => {
      live = next !== null && current !== null && current.state.last_seq > next.after ? null : next;
      stream.emit('live', live);
    };
    void followLive(this.options.store, id, showLive, stream.signal);
    void followRun(
      this.options.store,
      this.poller,
      id,
      {
        changed: (run) => {
          current = run;
          const changes = diff.next(viewInput(run, this.describe));
          if (changes.head !== undefined) stream.emit('head', changes.head);
          if (changes.transcript !== undefined) stream.emit('transcript', changes.transcript);
          if (changes.timeline !== undefined) stream.emit('timeline', changes.timeline);
          if (live !== null && run.state.last_seq > live.after) showLive(null); // its record arrived
        },
        gone: (message) => stream.emit('gone', { error: message }),
      },
      stream.signal,
    );
  }

  private async answer(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const header = req.headers['x-logbook-token'];
    if (!this.tokenMatches(Array.isArray(header) ? header[0] : header)) throw new HttpError(403, 'an answer carries the token in its X-Logbook-Token header');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== this.origin && origin !== `http://localhost:${this.port}`) throw new HttpError(403, 'an answer comes from this page only');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new HttpError(415, 'an answer is JSON');
    const answer = parseAnswer(await body(req));
    if (this.options.config === undefined) {
      throw new LogbookError('config', 'continuing a run needs the config it runs with: start `logbook ui` with --config FILE (or where ./agent.yaml is)');
    }
    const continuation = await this.continuations.start(id, answer);
    sendJson(res, 202, { continuation });
  }

  /** Stops serving: open streams end, and continuations the ui started are let finish (a stop signal suspends them). */
  async close(): Promise<void> {
    this.poller.stop();
    for (const stream of [...this.streams]) stream.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
    await this.continuations.settled();
  }
}

/** A run id from a path, checked before it becomes a key. */
function runId(segment: string): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'a run id is a path segment');
  }
  if (!isValidId(id)) throw new HttpError(400, `${JSON.stringify(id)} is not a run id`);
  return id;
}

async function body(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, 'an answer is a few hundred bytes');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseAnswer(text: string): Answer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'an answer is JSON');
  }
  const v = value as Partial<Answer>;
  if (typeof v !== 'object' || v === null || typeof v.callId !== 'string' || (v.action !== 'approve' && v.action !== 'deny')) {
    throw new HttpError(400, 'an answer is {"callId": "...", "action": "approve" | "deny", "reason"?: "..."}');
  }
  if (v.reason !== undefined && (typeof v.reason !== 'string' || v.action !== 'deny')) throw new HttpError(400, 'a reason goes with a denial, as text');
  const answer: Answer = { callId: v.callId, action: v.action };
  if (v.reason !== undefined && v.reason.trim() !== '') answer.reason = v.reason.trim();
  return answer;
}
