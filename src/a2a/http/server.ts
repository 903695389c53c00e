/**
 * The A2A 1.0 HTTP server, built on the official SDK: its request handler
 * (DefaultRequestHandler), its JSON-RPC and HTTP+JSON transports and its agent
 * card handler, on express. logbook adds only what the SDK leaves to a server:
 * the bearer token (a request without it gets 401 before any handler, so it
 * touches no store), bounds on bodies and messages, the answers a task waiting
 * for input takes, and the agent card it serves.
 *
 * Routes: the card at `/.well-known/agent-card.json` (public, as discovery
 * is), JSON-RPC at `/jsonrpc`, HTTP+JSON under `/rest`; A2A 0.3 clients are
 * served on the same paths by the SDK's compatibility layer (REST 0.3 under
 * `/rest/v1`).
 */
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, TaskState, type AgentCard, type SendMessageRequest, type StreamResponse, type Task, type Message } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DefaultExecutionEventBusManager, DefaultRequestHandler, type AgentExecutionEvent, type AgentExecutor, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { GetTaskRequest, ListTasksRequest, ListTasksResponse, SubscribeToTaskRequest } from '@a2a-js/sdk';
import { EVENT_NUMBER, eventNumber, isFinalState } from './projection.js';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { LogbookError } from '../../core/index.js';
import { NEW_CONTEXT, approvalAnswer, messageProblem } from './messages.js';

/** The earlier protocol version also served, through the SDK's compatibility layer. */
const LEGACY_VERSION = '0.3';

/** The most bytes a request body may have. */
export const MAX_BODY_BYTES = 100 * 1024;

/** HOST:PORT, read. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback), checked. */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || !(port >= 0 && port <= 65535)) {
    throw new LogbookError('usage', `${JSON.stringify(text)} is not an address to listen on: write HOST:PORT (127.0.0.1:8080, [::1]:8080, or :8080 for loopback)`);
  }
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** Whether `host` is reached from this machine alone. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether `host` is every address of the machine (`0.0.0.0`, `::`): listened on, never reached at. */
export function isUnspecified(host: string): boolean {
  return host === '0.0.0.0' || /^[0:]+$/.test(host);
}

/** A Host header's value as RFC 9110 allows it: a DNS name or IP literal, and a port. */
const HOST_HEADER = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The base URL a request asked the server by (its Host), or null when its Host is none a URL can carry. */
export function baseFromHost(host: string | undefined): string | null {
  if (host === undefined || host.length > 260 || !HOST_HEADER.test(host)) return null;
  return `http://${host.toLowerCase()}`;
}

/** What the agent card says of the agent. */
export interface CardFacts {
  name: string;
  description: string;
  version: string;
  /** The skills the card lists: at least the agent's tasks. */
  skills: { id: string; name: string; description: string; tags: string[] }[];
  /** Whether requests need the bearer token. */
  bearer: boolean;
}

/** The agent card for a server reached at `base`: the bindings it serves, the capabilities it has (streaming; no push notifications). */
export function agentCard(facts: CardFacts, base: string): AgentCard {
  const iface = (path: string, protocolBinding: string, protocolVersion = A2A_PROTOCOL_VERSION) => ({ url: `${base}${path}`, protocolBinding, tenant: '', protocolVersion });
  return {
    name: facts.name,
    description: facts.description,
    // 1.0 first; 0.3 through the SDK's compatibility layer, for the clients (and the TCK) still on it
    supportedInterfaces: [iface('/jsonrpc', 'JSONRPC'), iface('/rest', 'HTTP+JSON'), iface('/jsonrpc', 'JSONRPC', LEGACY_VERSION), iface('/rest', 'HTTP+JSON', LEGACY_VERSION)],
    provider: undefined,
    version: facts.version,
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: facts.bearer
      ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'the token named by a2a.http.token_env', scheme: 'Bearer', bearerFormat: '' } } } }
      : {},
    securityRequirements: facts.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: facts.skills.map((s) => ({ ...s, examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
    signatures: [],
    iconUrl: undefined,
  } as AgentCard;
}

/** Loads a task as the journal says, for the checks made before the SDK takes a message. */
type TaskLoader = (taskId: string) => Promise<Task | undefined>;

/** Every event of a task as the journal projects it, numbered; undefined when there is no such task. */
export type TaskEventsLoader = (taskId: string) => Promise<{ events: AgentExecutionEvent[]; task: Task } | undefined>;

/** The stream response an executor's event is sent as. */
function streamResponse(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { payload: { $case: 'task', value: event.data } };
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: event.data } };
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: event.data } };
    case 'message':
      return { payload: { $case: 'message', value: event.data } };
  }
}

/** The number a stream response carries (EVENT_NUMBER), when it has one. */
function responseNumber(r: StreamResponse): number | undefined {
  const p = r.payload;
  if (p === undefined || p.$case === 'message') return undefined;
  const n = (p.value.metadata as Record<string, unknown> | undefined)?.[EVENT_NUMBER];
  return typeof n === 'number' ? n : undefined;
}

/**
 * A stream with no event twice: the SDK sends a task as the store has it when
 * it is sent (its number covering every event it holds), and an event already
 * in it may come after it from the bus; that event is left out, so each SSE
 * id is one more than the last and `Last-Event-ID` gives all after it.
 */
async function* onceEach(stream: AsyncGenerator<StreamResponse, void, undefined>): AsyncGenerator<StreamResponse, void, undefined> {
  let sent = 0;
  for await (const r of stream) {
    const n = responseNumber(r);
    if (n !== undefined && n <= sent) continue;
    if (n !== undefined) sent = n;
    yield r;
  }
}

/** The spec's refusal of a negative `historyLength`. */
function checkHistoryLength(params: { historyLength?: number | undefined } | undefined): void {
  const n = params?.historyLength;
  if (n !== undefined && !(Number.isInteger(n) && n >= 0)) throw new RequestMalformedError('historyLength must be a non-negative integer');
}

/** The `Last-Event-ID` a call names (a number), or undefined. */
function lastEventId(context: ServerCallContext): number | undefined {
  const headers = context.state.get('headers') as Record<string, string | string[] | undefined> | undefined;
  const raw = headers?.['last-event-id'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (text === undefined || !/^\d{1,9}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/**
 * The SDK's request handler, with the checks a message gets before it is
 * taken: its bounds, and for a message to a task that exists, that the task
 * waits for input and the message answers it (approve or deny).
 */
class CheckedRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    store: TaskStore,
    executor: AgentExecutor,
    buses: DefaultExecutionEventBusManager,
    private readonly loadTask: TaskLoader,
    private readonly loadEvents: TaskEventsLoader,
  ) {
    super(card, store, executor, buses);
  }

  /**
   * A subscription naming the last event its client saw (`Last-Event-ID`)
   * gets every event after it again, from the journal, then the live ones
   * (none twice, none missing: the live feed is attached before the journal is
   * read); without it, the SDK's: the task as it stands, then what follows.
   * A task that has ended gives the rest of its events and the stream closes.
   */
  override async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const after = lastEventId(context);
    if (after === undefined) {
      yield* onceEach(super.resubscribe(params, context));
      return;
    }
    const live = super.resubscribe(params, context);
    let attached = true;
    try {
      await live.next(); // attached to the task's bus (the task as it stands is replaced by what the journal gives)
    } catch (err) {
      if (!(err instanceof UnsupportedOperationError)) throw err;
      attached = false; // ended: the journal has all of it
    }
    const journaled = await this.loadEvents(params.id);
    if (journaled === undefined) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    let sent = after;
    for (const e of journaled.events) {
      const n = eventNumber(e);
      if (n === undefined || n <= sent) continue;
      sent = n;
      yield streamResponse(e);
    }
    if (!attached || isFinalState(journaled.task.status?.state)) {
      await live.return(undefined);
      return;
    }
    for await (const r of live) {
      const n = responseNumber(r);
      if (n !== undefined && n <= sent) continue;
      if (n !== undefined) sent = n;
      yield r;
    }
  }

  private async check(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    checkHistoryLength(params.configuration);
    const message: Message | undefined = params.message;
    if (message === undefined) return; // the SDK refuses it
    if (!message.contextId && !message.taskId) context.state.set(NEW_CONTEXT, true);
    const problem = messageProblem(message);
    if (problem !== null) throw new RequestMalformedError(problem);
    if (!message.taskId) return;
    const task = await this.loadTask(message.taskId);
    if (task === undefined) return; // the SDK answers: task not found
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      if (approvalAnswer(message) === null) throw new RequestMalformedError(`task ${task.id} waits for an approval: answer "approve" or "deny" (or a data part {"approval": "approve" | "deny"})`);
      return;
    }
    if (state === TaskState.TASK_STATE_WORKING || state === TaskState.TASK_STATE_SUBMITTED) {
      throw new UnsupportedOperationError(`task ${task.id} is working and takes no message now; send it once it asks for input, or start a new task in its context once it completed`);
    }
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await this.check(params, context);
    return super.sendMessage(params, context);
  }

  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.check(params, context);
    yield* onceEach(super.sendMessageStream(params, context));
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    checkHistoryLength(params);
    return super.getTask(params, context);
  }

  override async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    checkHistoryLength(params);
    return super.listTasks(params, context);
  }
}

export interface A2AServerOptions {
  listen: ListenAddress;
  /** The base URL clients reach the server at, which the card names; by default the address listened on, or on every interface the Host each client asks by. */
  publicUrl?: string;
  /** The bearer token every request but the card's must carry; none: no authentication (loopback only). */
  token?: string;
  card: CardFacts;
  executor: AgentExecutor;
  taskStore: TaskStore;
  loadTask: TaskLoader;
  loadEvents: TaskEventsLoader;
}

/** A running server. */
export interface A2AServer {
  /** The base URL it is reached at from this machine. */
  url: string;
  /** The base URL its card names: the configured one, the address listened on, or null on every interface (the Host each client asks by). */
  advertised: string | null;
  /** The card the request handler holds (its URLs: `advertised`, else `url`). */
  card: AgentCard;
  /** The SDK's event buses, one per task running: a task resumed by the server gets one, for subscribers to find. */
  buses: DefaultExecutionEventBusManager;
  /** Stops taking connections and closes those open. */
  close(): Promise<void>;
}

/** The JSON-RPC binding's path; everything else answers errors in HTTP+JSON's shape. */
const JSONRPC_PATH = '/jsonrpc';

/**
 * A refusal made before any handler reads the request, in the shape of the
 * binding asked: on JSON-RPC an error object (id null, the request unread;
 * code -32600, invalid request), on HTTP+JSON its error body (`google.rpc.Status`
 * as the SDK writes it). The HTTP status is kept either way.
 */
function refuse(req: express.Request, res: express.Response, http: number, status: string, message: string): void {
  res.status(http);
  if (req.path === JSONRPC_PATH || req.originalUrl.split('?')[0] === JSONRPC_PATH) {
    res.json({ jsonrpc: '2.0', id: null, error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message } });
  } else {
    res.json({ error: { code: http, status, message, details: [] } });
  }
}

/** Bearer-token check: 401 with `WWW-Authenticate` before anything else runs. */
function requireToken(token: string): express.RequestHandler {
  const want = Buffer.from(token, 'utf8');
  return (req, res, next) => {
    // The scheme's name is case-insensitive (RFC 9110 11.1); the token is not.
    const got = Buffer.from(/^bearer +(.*)$/i.exec(req.header('authorization') ?? '')?.[1] ?? '', 'utf8');
    if (got.length === want.length && timingSafeEqual(got, want)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    refuse(req, res, 401, 'UNAUTHENTICATED', 'unauthorized: this agent wants a bearer token');
  };
}

/** What a body past the bound is told. */
const TOO_LARGE = `request body past the bound: at most ${MAX_BODY_BYTES} bytes are taken`;

/**
 * Refuses a body announced above the bound before it is read; one without a
 * length is cut at the same bound (100 KiB) by the SDK's own JSON parser.
 */
function boundBodies(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const length = Number(req.header('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) return refuse(req, res, 413, 'INVALID_ARGUMENT', TOO_LARGE);
  next();
}

/**
 * An error that reaches express itself (a body without a length cut at the
 * bound, one that is no JSON) answers as the other refusals do, in JSON: never
 * express's default page, which carries a stack and the server's paths.
 */
function plainErrors(err: unknown, req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (res.headersSent) return next(err);
  const status = (err as { status?: unknown }).status;
  if (status === 413) return refuse(req, res, 413, 'INVALID_ARGUMENT', TOO_LARGE);
  const client = typeof status === 'number' && status >= 400 && status < 500;
  refuse(req, res, client ? status : 500, client ? 'INVALID_ARGUMENT' : 'INTERNAL', client ? 'bad request' : 'internal error');
}

/**
 * Gives each server-sent event of a task an `id:`, its number (EVENT_NUMBER),
 * so a client that reconnects can name the last one it saw in `Last-Event-ID`.
 * The SDK writes each event as one `data:` frame of JSON (a JSON-RPC response,
 * or the HTTP+JSON stream response).
 */
function numberEvents(_req: express.Request, res: express.Response, next: express.NextFunction): void {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('data: ')) {
      const n = frameNumber(chunk.slice(6));
      if (n !== undefined) chunk = `id: ${n}\n${chunk}`;
    }
    return write(chunk, ...rest);
  }) as typeof res.write;
  next();
}

/** The number an SSE frame's event carries, read from its JSON. */
function frameNumber(json: string): number | undefined {
  try {
    const v = JSON.parse(json) as { result?: Record<string, { metadata?: Record<string, unknown> }> } & Record<string, { metadata?: Record<string, unknown> }>;
    const body = (v.result ?? v) as Record<string, { metadata?: Record<string, unknown> } | undefined>;
    for (const key of ['task', 'statusUpdate', 'artifactUpdate']) {
      const n = body[key]?.metadata?.[EVENT_NUMBER];
      if (typeof n === 'number') return n;
    }
  } catch {
    /* not one of ours */
  }
  return undefined;
}

/** Starts the server; resolves once it listens. */
export async function startA2AServer(options: A2AServerOptions): Promise<A2AServer> {
  if (!isLoopback(options.listen.host) && options.token === undefined) {
    throw new LogbookError('config', `serving on ${options.listen.host}, off loopback, needs a bearer token: set a2a.http.token_env to the name of the variable holding it`);
  }
  const buses = new DefaultExecutionEventBusManager();
  const app = express();
  app.disable('x-powered-by');
  let card: AgentCard | null = null;
  let advertised: string | null = options.publicUrl ?? null;
  const handler = { current: null as CheckedRequestHandler | null };
  const legacyCompat = { enabled: true };
  const fixedCard = agentCardHandler({ agentCardProvider: { getAgentCard: async () => card! }, legacyCompat });
  // On every interface with no URL configured, a card names the Host its client asked by: an address that client reaches.
  app.use(`/${AGENT_CARD_PATH}`, (req, res, next) => {
    if (advertised !== null) return fixedCard(req, res, next);
    const base = baseFromHost(req.header('host'));
    if (base === null) {
      res.status(400).json({ error: 'the request names no Host the agent card can give its URLs by; set a2a.http.url on the server' });
      return;
    }
    return agentCardHandler({ agentCardProvider: { getAgentCard: async () => agentCard(options.card, base) }, legacyCompat })(req, res, next);
  });
  if (options.token !== undefined) app.use(requireToken(options.token));
  app.use(boundBodies);
  app.use(numberEvents);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.listen.port, options.listen.host);
    s.once('listening', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(new LogbookError('unavailable', `cannot listen on ${options.listen.host}:${options.listen.port}: ${err.code === 'EADDRINUSE' ? 'the address is in use' : err.message}`, { cause: err })),
    );
  });
  const address = server.address() as AddressInfo;
  const unspecified = isUnspecified(address.address);
  // on every interface, this machine reaches the server on loopback
  const reached = unspecified ? (address.family === 'IPv6' ? '::1' : '127.0.0.1') : address.address;
  const url = `http://${address.family === 'IPv6' ? `[${reached}]` : reached}:${address.port}`;
  if (advertised === null && !unspecified) advertised = url;
  card = agentCard(options.card, advertised ?? url);
  handler.current = new CheckedRequestHandler(card, options.taskStore, options.executor, buses, options.loadTask, options.loadEvents);
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler: handler.current, userBuilder, legacyCompat }));
  app.use('/rest', restHandler({ requestHandler: handler.current, userBuilder, legacyCompat }));
  app.use(plainErrors);
  return {
    url,
    advertised,
    card,
    buses,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
