/**
 * The reference's agent-to-agent wire (docs/reference/a2a.md): ten message
 * kinds, each one flat JSON object, a header's fields at the top level and then
 * the kind's own. Types keep the wire's snake_case keys, so a value's shape is
 * its bytes' shape. `protocol` alone says what a body is; subjects only route.
 */
import type { RawJson } from '../core/index.js';

/** The namespace and version every protocol id shares, as the reference spells it. */
export const A2A_NAMESPACE = 'io.choria.fisk-ai.v1';

/** The kinds, in the reference's order. */
export const MESSAGE_KINDS = [
  'request',
  'event',
  'result',
  'error',
  'cancel',
  'ack',
  'tool.request',
  'tool.reply',
  'discovery.request',
  'discovery.reply',
] as const;
/** The ten kinds of message on the wire. */
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** A kind's protocol id. */
export type ProtocolOf<K extends MessageKind> = `${typeof A2A_NAMESPACE}.${K}`;
/** Any kind's protocol id. */
export type A2AProtocol = ProtocolOf<MessageKind>;

export function protocolOf<K extends MessageKind>(kind: K): ProtocolOf<K> {
  return `${A2A_NAMESPACE}.${kind}`;
}

const KIND_BY_PROTOCOL = new Map<string, MessageKind>(MESSAGE_KINDS.map((k) => [protocolOf(k), k]));

/** The kind a protocol id names, or undefined for one this build does not know. */
export function kindOf(protocol: string): MessageKind | undefined {
  return KIND_BY_PROTOCOL.get(protocol);
}

/**
 * The most a body may be, each way, checked before it is decoded: under the NATS
 * default payload of 1 MiB with room for framing, as the reference sets it.
 */
export const MAX_MESSAGE_BYTES = 768 * 1024;

/** What an identity (and an instance) must look like: one NATS subject token, and a micro service name. */
export const IDENTITY_PATTERN = /^[a-zA-Z0-9_-]+$/;

export const STOP_REASONS = ['end_turn', 'max_tokens', 'refusal', 'canceled', 'error', 'budget_exhausted', 'suspended', 'max_iterations'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

// ---- the header ---------------------------------------------------------------

/** Who sends or receives a message: an agent's identity, and which instance of it. */
export interface Identity {
  name: string;
  instance?: string;
}

/** The framing every message carries, in the order the reference writes it. */
export interface Header<P extends A2AProtocol = A2AProtocol> {
  protocol: P;
  /** Unique per message (a KSUID). */
  id: string;
  /** The originating request's id, echoed by every reply; on a request it equals `id`. */
  request: string;
  /** Stable across the requests of a session. */
  conversation: string;
  /** The request that spawned this one. */
  parent?: string;
  /** Per request, gap-free and monotonic, never reused across a restart. */
  sequence: number;
  /** RFC 3339, advisory only (wire-time.ts). */
  time: string;
  sender: Identity;
  recipient?: Identity;
  /** A receiver that does not know `protocol` must fail closed. */
  must_understand?: boolean;
}

// ---- shared shapes ------------------------------------------------------------

/** What a task's model calls used, as a result reports it. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
}

/** A request's limits for its task: each only lowers the serving agent's own. */
export interface Budget {
  max_tokens?: number;
  max_iterations?: number;
  /** A Go duration, e.g. `60s`. */
  call_timeout?: string;
}

/** What a command that ran did; absent for a tool that is not a command. */
export interface ExecResult {
  command?: string;
  exit_code?: number;
  truncated?: boolean;
}

/**
 * A tool's outcome, one shape for a tool.reply and a tool_result block. `is_error`
 * is a harness failure (the tool did not run cleanly); a command that ran and
 * exited non-zero is a success with `exec.exit_code`.
 */
export interface ToolOutcomeFields {
  is_error?: boolean;
  output?: string;
  exec?: ExecResult;
}

/** A tool an agent exposes, as its card lists it. */
export interface ToolDescriptor {
  name: string;
  description?: string;
  /** A JSON Schema object, carried as the text it was written as. */
  input_schema?: RawJson;
}

// ---- event blocks ---------------------------------------------------------------

/** What an event carries: one block of the task's run, as the reference's exchange names them. */
export type EventBlock =
  /** The signature is for audit and never replayed into a model across the boundary. */
  | { type: 'thinking'; text: string; signature?: string; provider?: string }
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; input?: RawJson }
  | ({ type: 'tool_result'; call_id: string } & ToolOutcomeFields)
  /** `task` is the request id of the sub-task it spawned. */
  | { type: 'agent_call'; id: string; name: string; task: string }
  | { type: 'status'; iteration?: number; phase?: string; usage?: Usage };

export type BlockType = EventBlock['type'];
export const BLOCK_TYPES: readonly BlockType[] = ['thinking', 'text', 'tool_call', 'tool_result', 'agent_call', 'status'];

// ---- the ten kinds --------------------------------------------------------------

/** A task asked of an agent. */
export interface RequestMessage extends Header<ProtocolOf<'request'>> {
  prompt: string;
  context?: string;
  tool_hints?: string[];
  budget?: Budget;
  /** Absent means stream. */
  stream?: boolean;
}

/** One block of a task's progress, in sequence. */
export interface EventMessage extends Header<ProtocolOf<'event'>> {
  block: EventBlock;
}

/** A task's answer: its last message when it ended well. */
export interface ResultMessage extends Header<ProtocolOf<'result'>> {
  stop_reason: StopReason;
  text?: string;
  usage?: Usage;
}

/** A task that failed: its last message, with a code a program can branch on. */
export interface ErrorMessage extends Header<ProtocolOf<'error'>> {
  stop_reason?: StopReason;
  error: string;
  code?: string;
}

/** Cancels the task named by the header's `request`. */
export interface CancelMessage extends Header<ProtocolOf<'cancel'>> {
  reason?: string;
}

/** A request taken (`accepted`), or refused with a reason. */
export interface AckMessage extends Header<ProtocolOf<'ack'>> {
  accepted: boolean;
  reason?: string;
}

export interface ToolRequestMessage extends Header<ProtocolOf<'tool.request'>> {
  name: string;
  /** A JSON object, carried as the text it was written as. */
  input?: RawJson;
}

export interface ToolReplyMessage extends Header<ProtocolOf<'tool.reply'>>, ToolOutcomeFields {}

export type DiscoveryRequestMessage = Header<ProtocolOf<'discovery.request'>>;

/** The agent card. */
export interface AgentCard {
  name: string;
  version: string;
  description?: string;
  protocols?: string[];
  tools?: ToolDescriptor[];
}

export interface DiscoveryReplyMessage extends Header<ProtocolOf<'discovery.reply'>>, AgentCard {}

export interface MessageOfKind {
  request: RequestMessage;
  event: EventMessage;
  result: ResultMessage;
  error: ErrorMessage;
  cancel: CancelMessage;
  ack: AckMessage;
  'tool.request': ToolRequestMessage;
  'tool.reply': ToolReplyMessage;
  'discovery.request': DiscoveryRequestMessage;
  'discovery.reply': DiscoveryReplyMessage;
}

export type A2AMessage = MessageOfKind[MessageKind];

/** A message's own fields, without its header: what a caller gives to have it stamped (stamp.ts). */
export type BodyOf<K extends MessageKind> = Omit<MessageOfKind[K], keyof Header>;
