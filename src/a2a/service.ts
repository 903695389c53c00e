/**
 * The serving side of the direct calls: a NATS micro service named by this
 * agent's identity (queue group = identity, so the instances of one identity
 * share the calls and `$SRV.PING/INFO/STATS` list them), answering discovery with
 * the agent's card and tool calls by running the tool. A body over the limit,
 * not valid against its schema, or of another protocol than its subject carries
 * is answered with an empty reply and the error headers, code 400; a reply that
 * cannot be made, 500. An unknown tool, or one that could not run, is an in-band
 * `tool.reply` with `is_error`. At most `maxConcurrent` calls run at once (the
 * rest wait their turn, up to WAITING_PER_SLOT per slot: one more is refused
 * at once as busy), each for at most `toolTimeoutMs`; a call whose caller
 * stopped waiting before its turn came (the wait it sent in
 * CALLER_TIMEOUT_HEADER, else DEFAULT_REPLY_TIMEOUT_MS) is dropped unrun.
 * Nothing is journaled: a served call is not a run.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Service, ServiceMsg } from '@nats-io/services';
import { LogbookError, isLogbookError, type RawJson } from '../core/index.js';
import { bodySize, decodeMessage } from './decode.js';
import { encodeMessage } from './encode.js';
import { A2A_NAMESPACE, MAX_MESSAGE_BYTES, type AgentCard, type Header, type ToolDescriptor, type ToolOutcomeFields } from './protocol.js';
import { stampReply } from './stamp.js';
import { cutToBytes } from './task-events.js';
import { CALLER_TIMEOUT_HEADER, DEFAULT_REPLY_TIMEOUT_MS, ENDPOINTS, EVENTS_BY_SENDER, EVENTS_METADATA, discoverySubject, toolSubject } from './subjects.js';

/** The tools a service answers for, and how one is run. */
export interface ToolHost {
  /** What the card lists, in order. */
  readonly tools: readonly ToolDescriptor[];
  /** Runs tool `name` (one of `tools`) with `input` (`{}` when the request had none). Aborting `signal` stops it. */
  call(name: string, input: RawJson | undefined, signal: AbortSignal): Promise<ToolOutcomeFields>;
}

export const SERVE_DEFAULTS = { maxConcurrent: 2, toolTimeoutMs: 30_000 } as const;

/** Calls that may wait for a slot, per slot: one more is refused at once (the agent is busy), not queued for longer than any caller waits. */
export const WAITING_PER_SLOT = 8;

/** What happened to one request, for the log line a server writes per call. */
export type ServedCall =
  | { kind: 'discovery'; sender: string; ms: number }
  | { kind: 'tool'; tool: string; sender: string; ms: number; outcome: 'ok' | 'is_error' | 'timeout' | 'unknown_tool' | 'busy'; exitCode?: number; detail?: string }
  | { kind: 'dropped'; tool: string; sender: string; ms: number; detail: string }
  | { kind: 'refused'; endpoint: keyof typeof ENDPOINTS; code: 400 | 500; detail: string };

export interface ToolServiceOptions {
  identity: string;
  /** The agent's version, on its card and its micro service registration (a SemVer). */
  version: string;
  description?: string;
  maxConcurrent?: number;
  toolTimeoutMs?: number;
  /** Told of every request once it is answered. */
  onCall?: (call: ServedCall) => void;
}

/** Admits `limit` holders at a time, the rest in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.free = limit;
  }

  /** Whether a taker now would wait behind `max` others or more. */
  full(max: number): boolean {
    return this.free === 0 && this.waiting.length >= max;
  }

  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    };
  }
}

/** The card a service answers discovery with. */
export function agentCard(options: Pick<ToolServiceOptions, 'identity' | 'version' | 'description'>, tools: readonly ToolDescriptor[]): AgentCard {
  return {
    name: options.identity,
    version: options.version,
    ...(options.description ? { description: options.description } : {}),
    protocols: [A2A_NAMESPACE],
    ...(tools.length > 0 ? { tools: [...tools] } : {}),
  };
}

export class ToolService {
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private readonly slots: Slots;
  private readonly byName: Map<string, ToolDescriptor>;
  private readonly card: AgentCard;

  private constructor(
    private readonly service: Service,
    private readonly host: ToolHost,
    private readonly options: ToolServiceOptions,
  ) {
    this.slots = new Slots(options.maxConcurrent ?? SERVE_DEFAULTS.maxConcurrent);
    this.byName = new Map(host.tools.map((t) => [t.name, t]));
    this.card = agentCard(options, host.tools);
  }

  /** Registers the service and starts answering. */
  static async start(nc: NatsConnection, host: ToolHost, options: ToolServiceOptions): Promise<ToolService> {
    const { Svcm } = await import('@nats-io/services');
    let service: Service;
    try {
      service = await new Svcm(nc).add({
        name: options.identity,
        version: options.version,
        description: options.description ?? 'logbook agent: tools over A2A',
        queue: options.identity,
        // What a caller of its tasks reads before it asks for their events on its own subject (subjects.ts EVENTS_HEADER).
        metadata: { [EVENTS_METADATA]: EVENTS_BY_SENDER },
      });
    } catch (err) {
      throw new LogbookError('config', `cannot register agent ${options.identity} as a NATS service: ${(err as Error).message}`, { cause: err });
    }
    const served = new ToolService(service, host, options);
    service.addEndpoint(ENDPOINTS.discovery, { subject: discoverySubject(options.identity), handler: (err, msg) => served.onDiscovery(err, msg) });
    service.addEndpoint(ENDPOINTS.tool, { subject: toolSubject(options.identity), handler: (err, msg) => served.onTool(err, msg) });
    return served;
  }

  /** The service's instance id, as `$SRV` lists it. */
  get instanceId(): string {
    return this.service.info().id;
  }

  get exposed(): readonly ToolDescriptor[] {
    return this.host.tools;
  }

  private refuse(msg: ServiceMsg, endpoint: keyof typeof ENDPOINTS, code: 400 | 500, detail: string): void {
    msg.respondError(code, detail);
    this.options.onCall?.({ kind: 'refused', endpoint, code, detail });
  }

  /** Sends `reply`, or a 500 when it cannot be made. */
  private respond(msg: ServiceMsg, endpoint: keyof typeof ENDPOINTS, reply: () => string): boolean {
    let text: string;
    try {
      text = reply();
    } catch (err) {
      this.refuse(msg, endpoint, 500, `the reply could not be made: ${(err as Error).message}`);
      return false;
    }
    msg.respond(text);
    return true;
  }

  private onDiscovery(err: Error | null, msg: ServiceMsg): void {
    if (err !== null) return; // the service is stopping
    const started = Date.now();
    let request: Header;
    try {
      request = decodeMessage(msg.data, 'discovery.request');
    } catch (e) {
      this.refuse(msg, 'discovery', 400, (e as Error).message);
      return;
    }
    if (this.respond(msg, 'discovery', () => encodeMessage(stampReply('discovery.reply', this.card, request, this.options.identity)))) {
      this.options.onCall?.({ kind: 'discovery', sender: request.sender.name, ms: Date.now() - started });
    }
  }

  private onTool(err: Error | null, msg: ServiceMsg): void {
    if (err !== null) return;
    const started = Date.now();
    let request;
    try {
      request = decodeMessage(msg.data, 'tool.request');
    } catch (e) {
      this.refuse(msg, 'tool', 400, (e as Error).message);
      return;
    }
    const sender = request.sender.name;
    const reply = (fields: ToolOutcomeFields): string => encodeMessage(stampReply('tool.reply', fields, request, this.options.identity));
    if (!this.byName.has(request.name)) {
      const detail = `tool ${JSON.stringify(request.name)} is not available`;
      if (this.respond(msg, 'tool', () => reply({ is_error: true, output: detail }))) {
        this.options.onCall?.({ kind: 'tool', tool: request.name, sender, ms: Date.now() - started, outcome: 'unknown_tool', detail });
      }
      return;
    }
    const maxConcurrent = this.options.maxConcurrent ?? SERVE_DEFAULTS.maxConcurrent;
    if (this.slots.full(maxConcurrent * WAITING_PER_SLOT)) {
      const detail = `agent ${this.options.identity} is busy: ${maxConcurrent * WAITING_PER_SLOT} calls wait for its ${maxConcurrent} slot${maxConcurrent === 1 ? '' : 's'}; call again later`;
      if (this.respond(msg, 'tool', () => reply({ is_error: true, output: detail }))) {
        this.options.onCall?.({ kind: 'tool', tool: request.name, sender, ms: Date.now() - started, outcome: 'busy', detail });
      }
      return;
    }
    const waitsMs = callerWaitMs(msg);
    this.inFlight++;
    void this.run(request.name, request.input, started + waitsMs)
      .then((ran) => {
        if (ran === null) {
          const detail = `it waited ${Date.now() - started} ms for a slot, past its caller's ${waitsMs / 1000} s: not run`;
          this.options.onCall?.({ kind: 'dropped', tool: request.name, sender, ms: Date.now() - started, detail });
          return;
        }
        const { fields, outcome } = ran;
        if (this.respond(msg, 'tool', () => fitted(reply, fields, request.name))) {
          const exitCode = fields.exec?.exit_code ?? (fields.exec !== undefined ? 0 : undefined);
          this.options.onCall?.({
            kind: 'tool',
            tool: request.name,
            sender,
            ms: Date.now() - started,
            outcome,
            ...(exitCode !== undefined ? { exitCode } : {}),
            ...(fields.is_error && fields.output ? { detail: fields.output } : {}),
          });
        }
      })
      .finally(() => {
        if (--this.inFlight === 0) this.idle?.();
      });
  }

  /**
   * Runs one call in its slot, bounded by the tool timeout; whatever goes
   * wrong is an in-band error. Null, unrun, when its slot came after
   * `deadline` (its caller stopped waiting for the reply then).
   */
  private async run(name: string, input: RawJson | undefined, deadline: number): Promise<{ fields: ToolOutcomeFields; outcome: 'ok' | 'is_error' | 'timeout' } | null> {
    const release = await this.slots.take();
    if (Date.now() >= deadline) {
      release();
      return null;
    }
    const timeoutMs = this.options.toolTimeoutMs ?? SERVE_DEFAULTS.toolTimeoutMs;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), timeoutMs);
    try {
      const fields = await this.host.call(name, input, stop.signal);
      return { fields, outcome: fields.is_error ? 'is_error' : 'ok' };
    } catch (err) {
      if (stop.signal.aborted) return { fields: { is_error: true, output: `tool ${JSON.stringify(name)} did not finish within ${timeoutMs / 1000} s` }, outcome: 'timeout' };
      const why = isLogbookError(err) || err instanceof Error ? err.message : String(err);
      return { fields: { is_error: true, output: `tool ${JSON.stringify(name)} could not run: ${why}` }, outcome: 'is_error' };
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** Stops taking calls, lets the calls in flight (and those waiting for a slot) finish and be answered, then resolves. */
  async drain(): Promise<void> {
    await this.service.stop();
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }
}

/** How long the caller of `msg` waits for its reply: as its CALLER_TIMEOUT_HEADER says, else the default every caller is given. */
function callerWaitMs(msg: ServiceMsg): number {
  const said = Number(msg.headers?.get(CALLER_TIMEOUT_HEADER) ?? '');
  return Number.isFinite(said) && said > 0 ? said : DEFAULT_REPLY_TIMEOUT_MS;
}

/** What a served tool's output cut to fit its reply ends with: nothing keeps the rest (a served call is not journaled). */
export const SERVED_CUT_NOTE = '\n[cut: the rest of the output did not fit in a reply]';

/**
 * The reply for `fields`, its output cut (on a character, measured as the
 * encoder writes it) to what a reply may carry, marked truncated; one that
 * still does not fit says so in-band instead of carrying the output.
 */
function fitted(reply: (fields: ToolOutcomeFields) => string, fields: ToolOutcomeFields, name: string): string {
  const text = reply(fields);
  const size = bodySize(text);
  if (size <= MAX_MESSAGE_BYTES) return text;
  if (fields.output) {
    const marked: ToolOutcomeFields = { ...fields, ...(fields.exec !== undefined ? { exec: { ...fields.exec, truncated: true } } : {}) };
    // Room beside the rest of the reply, less the output's key and what a fresh id and time may differ by.
    const room = MAX_MESSAGE_BYTES - bodySize(reply({ ...marked, output: '' })) - 64;
    const cut = reply({ ...marked, output: cutToBytes(fields.output, room, SERVED_CUT_NOTE) });
    if (bodySize(cut) <= MAX_MESSAGE_BYTES) return cut;
  }
  return reply({ is_error: true, output: `the reply of tool ${JSON.stringify(name)} would be ${size} bytes, over the ${MAX_MESSAGE_BYTES / 1024} KiB a reply may carry` });
}
