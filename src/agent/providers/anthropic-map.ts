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
import { LogbookError, RawJson, fromByteField, toByteField, type Block, type Message } from '../../core/index.js';
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

type OutBlock = Api.ContentBlockParam;

/** The request body; `stream` is set by the caller. */
export function toAnthropicParams(request: ModelRequest, model: string, splicer: RawSplicer): Api.MessageCreateParamsStreaming {
  // A message left with no blocks (an empty model reply) is not sent: the API
  // refuses empty content, and it joins the turns on either side of the gap.
  const messages: Api.MessageParam[] = request.messages
    .map((m) => ({ role: m.role, content: m.content.flatMap((b) => toParamBlock(b, splicer)) }))
    .filter((m) => m.content.length > 0);
  if (request.promptCache) markCacheBreakpoint(messages);
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

function toParamBlock(block: Block, splicer: RawSplicer): OutBlock[] {
  if ('text' in block) {
    // The API refuses empty text blocks, which a model itself sometimes streams.
    return block.text.text === '' ? [] : [{ type: 'text', text: block.text.text }];
  }
  if ('thinking' in block) {
    // Thinking goes back only with its signature; the API refuses it otherwise.
    // The journal holds the signature as a byte field: the API gets its string back.
    const { text, signature } = block.thinking;
    return signature === undefined ? [] : [{ type: 'thinking', thinking: text ?? '', signature: fromByteField(signature) }];
  }
  if ('tool_use' in block) {
    const { id, name, input } = block.tool_use;
    return [{ type: 'tool_use', id, name, input: splicer.slot(input.text) }];
  }
  if ('tool_result' in block) {
    const { tool_use_id, content, is_error } = block.tool_result;
    return [{ type: 'tool_result', tool_use_id, content, ...(is_error ? { is_error: true } : {}) }];
  }
  // A provider block is sent as the block itself, exactly as it was received.
  return [splicer.slot(block.provider.raw.text) as OutBlock];
}

/** Caches the prefix up to the last message's last block that can carry a breakpoint. */
function markCacheBreakpoint(messages: Api.MessageParam[]): void {
  const content = messages.at(-1)?.content;
  if (!Array.isArray(content)) return;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.type === 'text' || block.type === 'tool_use' || block.type === 'tool_result') {
      block.cache_control = EPHEMERAL;
      return;
    }
  }
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
