/**
 * The caller's side of the direct calls: discovering an agent (its card) and
 * calling one of its tools, each one request and one reply over core NATS. Every
 * body is checked both ways: what goes out is checked against its schema and the
 * size limit before it is sent, what comes back is checked before it is read.
 * A failed or refused tool is an in-band reply (`is_error`), not an error here;
 * an error here means the call could not be made or answered, and its message
 * says why without naming the agent (the caller says which agent and call).
 */
import { headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader, ServiceErrorHeader } from '@nats-io/services';
import { LogbookError, type RawJson } from '../core/index.js';
import { decodeMessage } from './decode.js';
import { outgoing } from './outgoing.js';
import type { AgentCard, BodyOf, MessageKind, MessageOfKind, ToolReplyMessage } from './protocol.js';
import { stampRequest } from './stamp.js';
import { CALLER_TIMEOUT_HEADER, DEFAULT_REPLY_TIMEOUT_MS, discoverySubject, toolSubject } from './subjects.js';

export interface CallOptions {
  /** How long to wait for the reply (default 30 s). */
  timeoutMs?: number;
}

export { outgoing } from './outgoing.js';

/** The micro service error a reply carries in its headers (`Nats-Service-Error-Code`), if any. */
export function serviceError(msg: Msg): { code: string; description: string } | null {
  const code = msg.headers?.get(ServiceErrorCodeHeader) ?? '';
  if (code === '') return null;
  return { code, description: msg.headers?.get(ServiceErrorHeader) ?? '' };
}

export class A2AClient {
  constructor(
    private readonly nc: NatsConnection,
    /** This agent's identity: the sender of every request. */
    readonly identity: string,
    private readonly timeoutMs: number = DEFAULT_REPLY_TIMEOUT_MS,
  ) {}

  /** Agent `agent`'s card. */
  async discover(agent: string, options: CallOptions = {}): Promise<AgentCard> {
    const reply = await this.roundTrip(agent, discoverySubject(agent), 'discovery.request', {}, 'discovery.reply', options);
    const { name, version, description, protocols, tools } = reply;
    return { name, version, ...(description !== undefined ? { description } : {}), ...(protocols ? { protocols } : {}), ...(tools ? { tools } : {}) };
  }

  /** Calls tool `name` of agent `agent` with `input` (a JSON object; absent is `{}` to the server). */
  callTool(agent: string, name: string, input: RawJson | undefined, options: CallOptions = {}): Promise<ToolReplyMessage> {
    // The schema wants an object when input is there: a tool without arguments sends none.
    const body = input === undefined || input.text === 'null' ? { name } : { name, input };
    return this.roundTrip(agent, toolSubject(agent), 'tool.request', body, 'tool.reply', options);
  }

  private async roundTrip<K extends MessageKind, R extends MessageKind>(
    agent: string,
    subject: string,
    kind: K,
    body: BodyOf<K>,
    replyKind: R,
    options: CallOptions,
  ): Promise<MessageOfKind[R]> {
    const text = outgoing(kind, stampRequest(kind, body, this.identity, agent));
    const timeout = options.timeoutMs ?? this.timeoutMs;
    let msg: Msg;
    try {
      const h = headers();
      h.set(CALLER_TIMEOUT_HEADER, String(timeout)); // a server drops the call if it cannot start it in time
      msg = await this.nc.request(subject, text, { timeout, headers: h });
    } catch (err) {
      throw unanswered(subject, timeout, err);
    }
    const refusal = serviceError(msg);
    if (refusal !== null) {
      throw new LogbookError('agent_refused', `the agent refused the ${kind} (${refusal.code}${refusal.description ? `: ${refusal.description}` : ''})`);
    }
    try {
      return decodeMessage(msg.data, replyKind);
    } catch (err) {
      throw new LogbookError('invalid_message', `its reply cannot be read: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * Why a request got no reply: `agent_unavailable` for no responders or a
 * timeout, `unavailable` when the connection failed. Messages say what happened
 * without naming the agent: callers say which agent and which call.
 */
function unanswered(subject: string, timeoutMs: number, err: unknown): LogbookError {
  const e = err as Error & { isNoResponders?: () => boolean; cause?: unknown };
  const noResponders = e?.isNoResponders?.() === true || (e?.cause as Error | undefined)?.name === 'NoResponders' || e?.name === 'NoResponders';
  if (noResponders) return new LogbookError('agent_unavailable', `agent unavailable: nothing answers on ${subject}`, { cause: err });
  const timedOut = e?.name === 'TimeoutError' || (e?.cause as Error | undefined)?.name === 'TimeoutError';
  if (timedOut) return new LogbookError('agent_unavailable', `agent unavailable: no reply on ${subject} within ${timeoutMs / 1000} s`, { cause: err });
  return new LogbookError('unavailable', `the request on ${subject} failed: ${e?.message ?? String(err)}`, { cause: err });
}
