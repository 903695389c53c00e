/**
 * The HTTP half shared by the fake model APIs (fake-anthropic.ts, fake-openai.ts):
 * a loopback server on an ephemeral port that records every request and answers
 * each from a queue of scripted replies, else from a handler function.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawSplicer } from '../../src/agent/providers/raw-splice.js';

export interface RecordedRequest {
  method: string;
  /** The path with any query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
  /** The body parsed, or undefined when it is not JSON. */
  json: any;
  /** Resolves if the client hangs up before the response is complete (an abort). */
  closedEarly: Promise<void>;
  /** Set once the whole response is written. */
  answered: boolean;
  /**
   * The request's input tokens as the server counted them (FakeApiSpec.countTokens),
   * when the server has a context window (FakeApiServer.contextWindow): what its
   * usage reports unless the reply says otherwise.
   */
  inputTokens?: number;
}

/** How the fake servers count tokens: one per four characters of the request's JSON, rounded up. Deterministic, and near enough to real counts. */
export function countTokens(...parts: unknown[]): number {
  return Math.ceil(parts.reduce<number>((n, p) => n + (p === undefined ? 0 : JSON.stringify(p).length), 0) / 4);
}

/** What goes on the wire: a status, headers and body chunks written one by one. */
export type Wire =
  | {
      status: number;
      headers?: Record<string, string>;
      chunks: string[];
      /** Keep the response open after the chunks, until the client or close() ends it. */
      hold?: boolean;
      /** Milliseconds between one chunk and the next (a slow stream); all at once when absent. */
      intervalMs?: number;
      /** Drop the connection after the chunks, as a server or network that fails mid-stream does. */
      drop?: boolean;
    }
  /** Never answer at all. */
  | { hang: true };

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/** A value serialized as exactly this JSON text (big integers, `1.0`, key order). */
export class RawText {
  constructor(readonly text: string) {}
}
export function rawJson(text: string): RawText {
  JSON.parse(text); // must be one JSON value
  return new RawText(text);
}

/** JSON.stringify, except that RawText values are written as their own text. */
export function toJsonText(value: unknown): string {
  const splicer = new RawSplicer();
  const prepare = (v: unknown): unknown => {
    if (v instanceof RawText) return splicer.slot(v.text);
    if (Array.isArray(v)) return v.map(prepare);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prepare(x)]));
    return v;
  };
  return splicer.stringify(prepare(value));
}

/** Splits text into pieces of at most `size` code points (never inside a surrogate pair). */
export function pieces(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

export function jsonWire(status: number, body: unknown, headers: Record<string, string> = {}): Wire {
  return { status, headers: { 'content-type': 'application/json', ...headers }, chunks: [toJsonText(body)] };
}

export interface FakeApiSpec<Reply> {
  /** Whether this server answers the request at all (else 404 from `notFound`). */
  route(req: RecordedRequest): boolean;
  /** Whether the request asks for the list of models (GET /v1/models). */
  modelsRoute(req: RecordedRequest): boolean;
  /** The list of models `ids`, in the API's own shape. */
  models(ids: readonly string[]): Wire;
  render(reply: Reply, req: RecordedRequest): Wire;
  /**
   * The answer when nothing is queued and no handler is set, or the handler threw:
   * a 400 in the API's own shape, which a client does not retry.
   */
  scriptError(message: string): Wire;
  notFound(req: RecordedRequest): Wire;
  /** The request's input tokens (countTokens over what the model reads). */
  countTokens(req: RecordedRequest): number;
  /** The API's own refusal of a request of `tokens` input tokens past `window`, or null when it fits. */
  tooLong(req: RecordedRequest, tokens: number, window: number): Wire | null;
}

export class FakeApiServer<Reply> {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Answers a request when the queue is empty. */
  handler: ((req: RecordedRequest) => Reply | Promise<Reply>) | undefined;
  /**
   * The model's context window in tokens: when set, each request's input is
   * counted (RecordedRequest.inputTokens, reported as its usage), and one past
   * the window is refused with the API's own error body, as the real API
   * refuses it, before any queued reply is used.
   */
  contextWindow: number | undefined;
  /** The requests refused as longer than the context window, in order. */
  readonly refusedTooLong: RecordedRequest[] = [];
  /** The body (status 400) such a refusal is sent with instead of the API's own: another server's (context-refusals.ts). */
  tooLongBody: string | undefined;
  /**
   * The models GET /v1/models lists, in the API's own shape; none (the
   * default): that path is not found, as on a compatible server that lists none.
   * A listing is not one of `requests`.
   */
  models: string[] | undefined;
  /** The model listings asked for. */
  modelListings = 0;
  private readonly queue: Reply[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  protected constructor(
    private readonly server: Server,
    /** http://127.0.0.1:PORT */
    readonly origin: string,
  ) {}

  protected static async listenWith<Reply, T extends FakeApiServer<Reply>>(
    spec: FakeApiSpec<Reply>,
    make: (server: Server, origin: string) => T,
  ): Promise<T> {
    let self: T | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let resolveClosed!: () => void;
        const closedEarly = new Promise<void>((r) => (resolveClosed = r));
        res.on('close', () => {
          if (!res.writableFinished) resolveClosed();
        });
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, closedEarly, answered: false };
        void self!.answer(spec, recorded, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = make(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Queues replies, answered in order, one per request. */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Forgets the requests, the queue and the handler: a fresh server on the same port. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.handler = undefined;
    this.contextWindow = undefined;
    this.refusedTooLong.length = 0;
    this.tooLongBody = undefined;
    this.models = undefined;
    this.modelListings = 0;
  }

  /** How many queued replies are still unused. */
  get pending(): number {
    return this.queue.length;
  }

  /** Parsed bodies of the requests received, in order. */
  bodies(): any[] {
    return this.requests.map((r) => r.json);
  }

  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(spec: FakeApiSpec<Reply>, req: RecordedRequest, res: ServerResponse): Promise<void> {
    let wire: Wire;
    const window = this.contextWindow;
    const refusal = window !== undefined && spec.route(req) ? spec.tooLong(req, (req.inputTokens = spec.countTokens(req)), window) : null;
    if (spec.modelsRoute(req)) {
      this.modelListings++;
      wire = this.models === undefined ? spec.notFound(req) : spec.models(this.models);
    } else if (!spec.route(req)) {
      wire = spec.notFound(req);
    } else if (refusal !== null) {
      this.refusedTooLong.push(req);
      wire = this.tooLongBody === undefined ? refusal : { status: 400, headers: { 'content-type': 'application/json' }, chunks: [this.tooLongBody] };
    } else {
      const index = this.requests.push(req) - 1;
      this.waiters = this.waiters.filter((w) => (w.count <= this.requests.length ? (w.resolve(), false) : true));
      const next = this.queue.shift();
      try {
        if (next !== undefined) wire = spec.render(next, req);
        else if (this.handler) wire = spec.render(await this.handler(req), req);
        else wire = spec.scriptError(`fake server: no reply scripted for request ${index + 1}`);
      } catch (err) {
        wire = spec.scriptError(`fake server handler failed: ${(err as Error).message}`);
      }
    }
    if ('hang' in wire) return;
    res.writeHead(wire.status, wire.headers);
    if ('flushHeaders' in res) res.flushHeaders();
    for (const [i, chunk] of wire.chunks.entries()) {
      if (i > 0 && wire.intervalMs !== undefined) await new Promise((resolve) => setTimeout(resolve, wire.intervalMs));
      if (res.destroyed) return;
      res.write(chunk);
    }
    if (wire.drop) setTimeout(() => res.socket?.destroy(), 20); // once the chunks are on their way
    else if (!wire.hold) res.end(() => (req.answered = true));
  }
}
