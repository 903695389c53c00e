/**
 * The journal record format, version 3 (docs/record-format.md).
 *
 * Types that are written to a journal keep the format's own snake_case keys, so a
 * value's shape is its bytes' shape and nothing translates between the two.
 */
import type { RawJson } from './raw-json.js';

/** The only record format version this build reads or writes. */
export const VERSION = 3;

/**
 * Protocol ids live under the reference writer's session namespace, spelled out
 * exactly as it writes them: a journal names its records by these.
 */
export const PROTOCOL_NAMESPACE = 'io.choria.fisk-ai.v1.session';

/** The kinds of payload a record holds, exactly one each. */
export const PAYLOAD_KINDS = ['meta', 'assistant', 'user', 'tool_result', 'terminal'] as const;
/** One of PAYLOAD_KINDS. */
export type PayloadKind = (typeof PAYLOAD_KINDS)[number];

/** The protocol id of each payload kind, as a stored record names it. */
export const PROTOCOL_IDS: { readonly [K in PayloadKind]: `${typeof PROTOCOL_NAMESPACE}.${K}` } = {
  meta: `${PROTOCOL_NAMESPACE}.meta`,
  assistant: `${PROTOCOL_NAMESPACE}.assistant`,
  user: `${PROTOCOL_NAMESPACE}.user`,
  tool_result: `${PROTOCOL_NAMESPACE}.tool_result`,
  terminal: `${PROTOCOL_NAMESPACE}.terminal`,
};

/** A record protocol id: `io.choria.fisk-ai.v1.session.<kind>`. */
export type ProtocolId = (typeof PROTOCOL_IDS)[PayloadKind];

// ---- messages (provider-neutral) -------------------------------------------

/** Prose: the model's, or a person's. */
export interface TextBlock {
  text: { text: string };
}
/** The model's thinking, with the signature its API checks when it is sent back. */
export interface ThinkingBlock {
  /**
   * Either part may be absent: redacted or signature-only thinking. `signature`
   * is a byte field: base64 (standard alphabet, padded) of the provider's
   * signature string's UTF-8 bytes, never the provider's string itself; see
   * byte-field.ts for the two directions.
   */
  thinking: { text?: string; signature?: string };
}
/** A tool call the model made: its id, the tool's name and the input as the model wrote it. */
export interface ToolUseBlock {
  tool_use: { id: string; name: string; input: RawJson };
}
/** The answer to one tool call: what the model reads, and whether it is an error. */
export interface ToolResultBody {
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
/** A tool result in a user message, as the model APIs want it. */
export interface ToolResultBlock {
  tool_result: ToolResultBody;
}
/** A provider's own block (server tool, redacted thinking), carried verbatim. */
export interface ProviderBlock {
  provider: { kind: string; raw: RawJson };
}

/** One block of a message's content: exactly one of its kinds. */
export type Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ProviderBlock;

/** Who a message is from. */
export type Role = 'user' | 'assistant';

/** A message of the conversation, provider-neutral: its role and its blocks. */
export interface Message {
  role: Role;
  /** Written `null` when empty (an empty model reply); `null` and `[]` both read as []. */
  content: Block[];
}

// ---- payloads ---------------------------------------------------------------

/** The configuration a journal was written against; see fingerprint.ts. */
export interface Fingerprint {
  provider: string;
  model: string;
  system_hash: string;
  tools_hash: string;
  thinking_mode: string;
  max_tokens: number;
  max_iterations: number;
}

/** The first record of every run (seq 1): its id, when it was created, its agent's fingerprint and its prompt. */
export interface MetaPayload {
  version: number;
  run_id: string;
  /** RFC 3339 with fractional seconds, kept as the string that was read. */
  created: string;
  fingerprint: Fingerprint;
  prompt: string;
  interactive?: boolean;
}

/** A model turn, durable before any of its tools runs: the message, its iteration, why the model stopped and the tokens spent. */
export interface AssistantPayload {
  iteration: number;
  message: Message;
  stop_reason?: string;
  in_tokens: number;
  out_tokens: number;
  /** Never written when 0 (each counter on its own); absent folds as 0. */
  cache_read_tokens?: number;
  cache_create_tokens?: number;
}

/** A turn typed into a chat (or given as a follow-up): only the newly typed blocks. */
export interface UserPayload {
  /** Only the newly typed blocks, never a merged view. */
  message: Message;
}

/** One tool result, durable as its tool finishes. */
export interface ToolResultPayload {
  tool_use_id: string;
  result: ToolResultBody;
  remote?: boolean;
}

/** The reasons this build writes a run's end with. */
export const TERMINAL_REASONS = ['completed', 'suspended', 'error', 'budget', 'max_iterations'] as const;
/** Why a run stopped: one of TERMINAL_REASONS. */
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/**
 * A reason as a journal holds it: one this build writes, or one a newer writer
 * added inside version 3. An unknown reason is read and shown as it is, and it
 * never refuses a resume (only `completed` does).
 */
export type ReadTerminalReason = TerminalReason | (string & {});

/** A terminal payload this build writes. */
export interface TerminalPayload {
  reason: TerminalReason;
  message?: string;
}

/** A terminal payload as read from a journal. */
export interface ReadTerminalPayload {
  reason: ReadTerminalReason;
  message?: string;
}

/** A payload this build writes. */
export type Payload =
  | { meta: MetaPayload }
  | { assistant: AssistantPayload }
  | { user: UserPayload }
  | { tool_result: ToolResultPayload }
  | { terminal: TerminalPayload };

/** A payload as read: its terminal reason may be one this build does not write. */
export type ReadPayload = Exclude<Payload, { terminal: TerminalPayload }> | { terminal: ReadTerminalPayload };

/** One journal record: a sequence number and exactly one payload. */
export type JournalRecord = { seq: number } & ReadPayload;

export function payloadKind(p: ReadPayload): PayloadKind {
  if ('assistant' in p) return 'assistant';
  if ('tool_result' in p) return 'tool_result';
  if ('user' in p) return 'user';
  if ('terminal' in p) return 'terminal';
  return 'meta';
}

/** A message's prose: its text blocks, one after another on lines of their own. */
export function messageText(message: Message | undefined): string {
  if (message === undefined) return '';
  // Joined as it goes: a search through a long conversation asks this of every message, most with no text at all.
  let text: string | undefined;
  for (const b of message.content) if ('text' in b) text = text === undefined ? b.text.text : `${text}\n${b.text.text}`;
  return text ?? '';
}

/** The tool_use blocks of a message, in order. */
export function toolUses(message: Message): ToolUseBlock['tool_use'][] {
  const out: ToolUseBlock['tool_use'][] = [];
  for (const b of message.content) if ('tool_use' in b) out.push(b.tool_use);
  return out;
}
