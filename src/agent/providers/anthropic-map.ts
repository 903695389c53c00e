/**
 * The journal's message model to the Messages API and back. Pure: no IO.
 *
 * Raw JSON never goes through JS values on its way out: tool inputs and provider
 * blocks are spliced into the request body as the journal holds them. On the way
 * in, a tool input is the concatenated `input_json_delta` text, byte for byte.
 * A block that arrives whole in `content_block_start` (a server tool's result,
 * redacted thinking) has already been parsed by the SDK, so its numbers are
 * re-spelled the way JSON.stringify writes them (`1.0` becomes `1`).
 */
import type * as Api from '@anthropic-ai/sdk/resources/messages';
import {
  LogbookError,
  RawJson,
  fromByteField,
  heldRun,
  openApiBlockText,
  toByteField,
  type Block,
  type Message,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../core/index.js';
import type { ModelRequest, ModelResponse, StreamObserver, Usage } from '../provider.js';
import { RawSplicer } from './raw-splice.js';
import { IncompleteResponse } from './sdk-errors.js';
import { toolInput } from './tool-input.js';

/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * Extended thinking gets half of max_tokens, at least the API's minimum of 1024 and
 * always below max_tokens (the budget is part of max_tokens), so the answer keeps
 * at least half.
 */
export function thinkingBudget(maxTokens: number): number {
  const budget = Math.min(maxTokens - 1, Math.max(MIN_THINKING_BUDGET, Math.floor(maxTokens / 2)));
  if (budget < MIN_THINKING_BUDGET) {
    throw new LogbookError(
      'config',
      `anthropic: thinking "summarized" needs max_tokens above ${MIN_THINKING_BUDGET}, it is ${maxTokens}; raise max_tokens or set thinking to off`,
    );
  }
  return budget;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The request body; `stream` is set by the caller. Its messages are written
 * as JSON text at once (anthropicMessagesJson) and spliced in whole, so a
 * long conversation is never built as a second tree of objects to be
 * serialized after.
 */
export function toAnthropicParams(request: ModelRequest, model: string, splicer: RawSplicer): Api.MessageCreateParamsStreaming {
  const messages = splicer.arraySlot(anthropicMessagesJson(request.messages, request.promptCache)) as Api.MessageParam[];
  const params: Api.MessageCreateParamsStreaming = { model, max_tokens: request.maxTokens, messages, stream: true };
  if (request.system !== '') {
    params.system = request.promptCache ? [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] : request.system;
  }
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema as Api.Tool.InputSchema,
    }));
    if (request.toolChoice === 'none') params.tool_choice = { type: 'none' };
  }
  const thinking = thinkingParam(request.thinking, model, request.maxTokens);
  if (thinking !== undefined) params.thinking = thinking;
  return params;
}

/**
 * The models that take `thinking.type=enabled` as deprecated in favour of
 * `adaptive` (as the SDK warns of them), each with its dated versions.
 */
const ADAPTIVE_ONLY_MODELS = ['claude-opus-4-6', 'claude-mythos-preview'];

/** Whether `model` wants adaptive thinking rather than a fixed budget. */
export function prefersAdaptiveThinking(model: string): boolean {
  return ADAPTIVE_ONLY_MODELS.some((m) => model === m || model.startsWith(`${m}-`));
}

/**
 * The thinking a setting asks for: `adaptive` lets the model choose how much
 * to think; `summarized` a budget of half of max_tokens (`enabled`), or
 * adaptive for a model that deprecates a budget. Either way the thinking comes
 * back summarized, so it is journaled.
 */
function thinkingParam(setting: ModelRequest['thinking'], model: string, maxTokens: number): Api.ThinkingConfigParam | undefined {
  if (setting === 'off') return undefined;
  if (setting === 'adaptive' || prefersAdaptiveThinking(model)) return { type: 'adaptive', display: 'summarized' };
  return { type: 'enabled', budget_tokens: thinkingBudget(maxTokens) };
}

const str = (s: string): string => JSON.stringify(s);
const CACHE_CONTROL = `,"cache_control":${JSON.stringify(EPHEMERAL)}`;
const QUOTED_USER = str('user');
const QUOTED_ASSISTANT = str('assistant');
/**
 * A message's role as JSON: the API's two quoted once, not once a message (a
 * long conversation has thousands). Compared, not looked up in an object,
 * whose inherited members (`constructor`) a role string would find.
 */
const quotedRole = (role: string): string => (role === 'user' ? QUOTED_USER : role === 'assistant' ? QUOTED_ASSISTANT : str(role));

/**
 * Adds to `out` the API's text of a block of logbook's own kinds, without its
 * closing brace (where a cache breakpoint goes), after `sep`. Never called
 * for a block not sent (isSent), nor for a provider block, which is sent as
 * the block itself, exactly as it was received.
 */
function pushOpenBlock(out: string[], sep: string, block: TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock): void {
  if ('thinking' in block) {
    // The journal holds the signature as a byte field: the API gets its string back.
    out.push(sep, '{"type":"thinking","thinking":', str(block.thinking.text ?? ''), ',"signature":', str(fromByteField(block.thinking.signature!)));
  } else {
    // Strings as JSON.stringify writes them, lone surrogates escaped, as the SDK would send them.
    out.push(sep, openApiBlockText(block, str));
  }
}

/** Whether a block can carry a cache breakpoint (the API's own kinds of it that logbook sends). */
const takesBreakpoint = (block: Block): boolean => 'text' in block || 'tool_use' in block || 'tool_result' in block;

/**
 * Whether a block is sent: not empty text (the API refuses it, and a model
 * itself sometimes streams one), nor thinking without its signature (refused too).
 */
const isSent = (block: Block): boolean =>
  'text' in block ? block.text.text !== '' : 'thinking' in block ? block.thinking.signature !== undefined : true;

/**
 * Whether a message's canonical text (core message-text.ts) is its text in
 * the request as it is: every block of a kind the API takes in the same
 * shape, and sent (none is empty text, thinking or a provider block, and the
 * content is not empty). A raw value may hold one of these spellings too;
 * such a message is then only written from its blocks, to the same bytes.
 */
const NOT_AS_SENT = /\{"type":"(?:thinking|provider)"|\{"type":"text","text":""\}|"content":\[\]/;
const asSent = (text: string): boolean => !NOT_AS_SENT.test(text);

/**
 * Adds to `out` the request's text of a message written from its blocks
 * (after a comma unless it is the first); false when it has no block to send.
 */
function pushMessage(out: string[], m: Message, first: boolean, cached: number): boolean {
  if (!m.content.some(isSent)) return false;
  out.push(first ? '{"role":' : ',{"role":', quotedRole(m.role), ',"content":[');
  let sep = '';
  for (let j = 0; j < m.content.length; j++) {
    const block = m.content[j]!;
    if (!isSent(block)) continue;
    if ('provider' in block) out.push(sep, block.provider.raw.text);
    else {
      pushOpenBlock(out, sep, block);
      out.push(j === cached ? `${CACHE_CONTROL}}` : '}');
    }
    sep = ',';
  }
  out.push(']}');
  return true;
}

/**
 * The request's `messages` as JSON text: a message left with no blocks (an
 * empty model reply) is not sent (the API refuses empty content, and it joins
 * the turns on either side of the gap); with `promptCache`, the prefix up to
 * the last message's last block that can carry a breakpoint is cached.
 * Messages still held as their canonical text (a checkpoint's, not yet read)
 * go in as that text where it is what the API takes, never parsed.
 */
export function anthropicMessagesJson(messages: readonly Message[], promptCache: boolean): string {
  // Where the breakpoint goes, by position: a message or block object may stand at more than one place.
  const last = promptCache ? messages.findLastIndex((m) => m.content.some(isSent)) : -1;
  const cached = last < 0 ? -1 : messages[last]!.content.findLastIndex((b) => isSent(b) && takesBreakpoint(b));
  // One array of pieces joined once: a long conversation is one string built, not one for each piece.
  const out: string[] = ['['];
  let first = true;
  for (let i = 0; i < messages.length; ) {
    // Held texts run up to the message that takes the breakpoint, which is written from its blocks.
    const run = i === last ? null : heldRun(messages, i, last < 0 ? messages.length : last);
    if (run !== null && asSent(run.text)) {
      out.push(first ? '' : ',', run.text);
      first = false;
      i = run.end;
      continue;
    }
    // A run holding a message the API takes otherwise: its messages one at a time.
    for (const end = run?.end ?? i + 1; i < end; i++) {
      const text = run === null ? null : heldRun(messages, i, i + 1)!.text;
      if (text !== null && asSent(text)) out.push(first ? '' : ',', text);
      else if (!pushMessage(out, messages[i]!, first, i === last ? cached : -1)) continue;
      first = false;
    }
  }
  out.push(']');
  return out.join('');
}

interface OpenBlock {
  /** The block as `content_block_start` gave it. */
  start: Api.RawContentBlockStartEvent['content_block'];
  text: string;
  /** The concatenated `input_json_delta` text. */
  json: string;
  signature?: string;
}

/** Accumulates one streamed response (the raw event sequence) into a ModelResponse. */
export class AnthropicStreamReader {
  private readonly blocks: OpenBlock[] = [];
  private stopReason: string | null = null;
  private stopped = false;
  private usage = { input: 0, output: 0, cacheRead: 0, cacheCreate: 0 };

  constructor(private readonly observer?: StreamObserver) {}

  add(event: Api.RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message.usage);
        break;
      case 'content_block_start': {
        const start = event.content_block;
        const text = start.type === 'text' ? start.text : start.type === 'thinking' ? start.thinking : '';
        const signature = start.type === 'thinking' && start.signature ? start.signature : undefined;
        this.blocks[event.index] = { start, text, json: '', ...(signature ? { signature } : {}) };
        // A text block is announced even when it starts empty: the message's text joins every text block.
        if (start.type === 'text') this.observer?.onText?.(text, event.index);
        if (text !== '' && start.type === 'thinking') this.observer?.onThinking?.(text, event.index);
        break;
      }
      case 'content_block_delta':
        this.addDelta(event);
        break;
      case 'message_delta':
        this.stopReason = event.delta.stop_reason;
        this.addUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  private addDelta(event: Api.RawContentBlockDeltaEvent): void {
    const block = this.blocks[event.index];
    if (block === undefined) throw new IncompleteResponse(`content_block_delta for block ${event.index}, which never started`);
    const delta = event.delta;
    switch (delta.type) {
      case 'text_delta':
        block.text += delta.text;
        this.observer?.onText?.(delta.text, event.index);
        break;
      case 'thinking_delta':
        block.text += delta.thinking;
        this.observer?.onThinking?.(delta.thinking, event.index);
        break;
      case 'signature_delta':
        block.signature = delta.signature;
        break;
      case 'input_json_delta':
        block.json += delta.partial_json;
        break;
      default:
        break; // citations and future deltas: not carried
    }
  }

  /** Counters are whole-message totals: a later event overwrites, never adds. */
  private addUsage(u: Partial<Api.MessageDeltaUsage> | Api.Usage): void {
    if (u.input_tokens != null) this.usage.input = u.input_tokens;
    if (u.output_tokens != null) this.usage.output = u.output_tokens;
    if (u.cache_read_input_tokens != null) this.usage.cacheRead = u.cache_read_input_tokens;
    if (u.cache_creation_input_tokens != null) this.usage.cacheCreate = u.cache_creation_input_tokens;
    this.observer?.onUsage?.(this.counted());
  }

  private counted(): Usage {
    const { input, output, cacheRead, cacheCreate } = this.usage;
    return { inTokens: input, outTokens: output, cacheReadTokens: cacheRead, cacheCreateTokens: cacheCreate };
  }

  result(): ModelResponse {
    if (!this.stopped) throw new IncompleteResponse('the event stream ended before message_stop');
    const stopReason = this.stopReason ?? 'end_turn';
    const invalid = new Map<string, string>();
    const content = this.blocks.filter((b) => b !== undefined).map((b) => toBlock(b, stopReason, invalid));
    const message: Message = { role: 'assistant', content };
    return {
      message,
      stopReason,
      usage: this.counted(),
      ...(invalid.size > 0 ? { invalidToolInputs: invalid } : {}),
    };
  }
}

function toBlock(b: OpenBlock, stopReason: string, invalid: Map<string, string>): Block {
  const start = b.start;
  switch (start.type) {
    case 'text':
      return { text: { text: b.text } };
    case 'thinking':
      // The signature is journaled as a byte field (base64 of its UTF-8 bytes), as the reference keeps it.
      return { thinking: { ...(b.text !== '' ? { text: b.text } : {}), ...(b.signature ? { signature: toByteField(b.signature) } : {}) } };
    case 'tool_use': {
      if (b.json === '') return { tool_use: { id: start.id, name: start.name, input: RawJson.fromValue(start.input ?? {}) } };
      const { input, problem } = toolInput(b.json, stopReason === 'max_tokens');
      if (problem !== undefined) invalid.set(start.id, problem);
      return { tool_use: { id: start.id, name: start.name, input } };
    }
    default: {
      // Anything else goes back to the API as it came: a server tool, redacted thinking.
      let raw: string;
      if (b.json !== '' && 'input' in start) {
        const splicer = new RawSplicer();
        raw = splicer.stringify({ ...start, input: splicer.slot(checkedJson(b.json, start.type, stopReason).text) });
      } else {
        raw = JSON.stringify(start);
      }
      return { provider: { kind: start.type, raw: RawJson.fromValidText(raw) } };
    }
  }
}

function checkedJson(text: string, what: string, stopReason: string): RawJson {
  try {
    return RawJson.fromText(text);
  } catch (err) {
    const hint = stopReason === 'max_tokens' ? ' (cut off at max_tokens; raise max_tokens)' : '';
    throw new LogbookError('provider', `anthropic: the input of ${what} is not valid JSON${hint}`, { cause: err });
  }
}
