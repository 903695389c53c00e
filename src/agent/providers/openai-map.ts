/**
 * The journal's message model to Chat Completions and back. Pure: no IO.
 *
 * Chat Completions has no blocks: an assistant turn is one text plus tool calls,
 * and each tool result is its own `tool` message. Tool arguments are JSON text in
 * both directions, so tool inputs keep their exact bytes. Thinking and provider
 * blocks have no place in this API and are not sent.
 */
import type * as Api from 'openai/resources/chat/completions';
import { RawJson, type Block, type Message } from '../../core/index.js';
import type { ModelRequest, ModelResponse, StreamObserver, Usage } from '../provider.js';
import { IncompleteResponse } from './sdk-errors.js';
import { toolInput } from './tool-input.js';

export interface OpenAIRequestOptions {
  /**
   * Send the limit as `max_tokens`, which every compatible server knows, rather
   * than `max_completion_tokens`, which OpenAI's own reasoning models require.
   */
  legacyMaxTokens: boolean;
}

/** The API has no error flag on a tool message, so the model is told in the text. */
export const TOOL_ERROR_PREFIX = 'Error: ';

export function toOpenAIParams(
  request: ModelRequest,
  model: string,
  options: OpenAIRequestOptions,
): Api.ChatCompletionCreateParamsStreaming {
  const params: Api.ChatCompletionCreateParamsStreaming = {
    model,
    messages: toOpenAIMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (options.legacyMaxTokens) params.max_tokens = request.maxTokens;
  else params.max_completion_tokens = request.maxTokens;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.input_schema as Record<string, unknown> },
    }));
    if (request.toolChoice === 'none') params.tool_choice = 'none';
  }
  return params;
}

export function toOpenAIMessages(request: ModelRequest): Api.ChatCompletionMessageParam[] {
  const out: Api.ChatCompletionMessageParam[] = [];
  if (request.system !== '') out.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'assistant') out.push(assistantMessage(message));
    else out.push(...userMessages(message));
  }
  return out;
}

function assistantMessage(message: Message): Api.ChatCompletionAssistantMessageParam {
  let text = '';
  const calls: Api.ChatCompletionMessageFunctionToolCall[] = [];
  for (const b of message.content) {
    if ('text' in b) text += b.text.text;
    else if ('tool_use' in b) {
      const { id, name, input } = b.tool_use;
      calls.push({ id, type: 'function', function: { name, arguments: input.text } });
    }
  }
  const out: Api.ChatCompletionAssistantMessageParam = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
  if (calls.length > 0) out.tool_calls = calls;
  return out;
}

/** Tool results first, in order, as `tool` messages; any typed text after them as one user message. */
function userMessages(message: Message): Api.ChatCompletionMessageParam[] {
  const out: Api.ChatCompletionMessageParam[] = [];
  const texts: string[] = [];
  for (const b of message.content) {
    if ('tool_result' in b) {
      const { tool_use_id, content, is_error } = b.tool_result;
      out.push({ role: 'tool', tool_call_id: tool_use_id, content: is_error ? TOOL_ERROR_PREFIX + content : content });
    } else if ('text' in b) {
      texts.push(b.text.text);
    }
  }
  if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n\n') });
  return out;
}

const FINISH_REASONS: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** The neutral stop reason for a finish_reason; unknown ones pass through. */
export function stopReasonOf(finishReason: string): string {
  return FINISH_REASONS[finishReason] ?? finishReason;
}

interface OpenCall {
  id?: string;
  name: string;
  args: string;
}

/** Reasoning text some compatible servers stream beside the content. */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/** The blocks of the message result() makes, in its order, for the stream observer. */
const REASONING_BLOCK = 0;
const TEXT_BLOCK = 1;

/** Accumulates one streamed completion (its chunks) into a ModelResponse. */
export class OpenAIStreamReader {
  private text = '';
  private reasoning = '';
  private refusal = '';
  private readonly calls: OpenCall[] = [];
  private finishReason: string | null = null;
  private usage: Api.ChatCompletionChunk['usage'] = null;

  constructor(private readonly observer?: StreamObserver) {}

  add(chunk: Api.ChatCompletionChunk): void {
    if (chunk.usage) {
      this.usage = chunk.usage;
      this.observer?.onUsage?.(this.counted());
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = (delta as ReasoningDelta).reasoning_content ?? (delta as ReasoningDelta).reasoning;
      if (reasoning) {
        this.reasoning += reasoning;
        this.observer?.onThinking?.(reasoning, REASONING_BLOCK);
      }
      if (delta.content) {
        this.text += delta.content;
        this.observer?.onText?.(delta.content, TEXT_BLOCK);
      }
      // A refusal is no answer, so it is not streamed as one: it is shown, when the turn ends, as a refusal.
      if (delta.refusal) this.refusal += delta.refusal;
      for (const call of delta.tool_calls ?? []) this.addToolCall(call);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  private counted(): Usage {
    const cached = this.usage?.prompt_tokens_details?.cached_tokens;
    return {
      inTokens: this.usage?.prompt_tokens ?? 0,
      outTokens: this.usage?.completion_tokens ?? 0,
      ...(typeof cached === 'number' ? { cacheReadTokens: cached } : {}),
    };
  }

  private addToolCall(delta: Api.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const call = (this.calls[delta.index] ??= { name: '', args: '' });
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    if (delta.function?.arguments) call.args += delta.function.arguments;
  }

  result(): ModelResponse {
    if (this.finishReason === null) throw new IncompleteResponse('the stream ended without a finish_reason');
    const content: Block[] = [];
    if (this.reasoning !== '') content.push({ thinking: { text: this.reasoning } });
    if (this.text !== '') content.push({ text: { text: this.text } });
    if (this.refusal !== '') content.push({ text: { text: this.refusal } });
    const invalid = new Map<string, string>();
    this.calls.forEach((call, index) => {
      if (call === undefined) return;
      if (call.name === '') throw new IncompleteResponse(`tool call ${index} has no function name`);
      const id = call.id ?? `call_${index}`;
      // A call to a tool without parameters may come with no arguments at all.
      const { input, problem } = call.args.trim() === '' ? { input: RawJson.fromText('{}') } : toolInput(call.args, this.finishReason === 'length');
      if (problem !== undefined) invalid.set(id, problem);
      content.push({ tool_use: { id, name: call.name, input } });
    });
    return {
      message: { role: 'assistant', content },
      stopReason: this.refusal !== '' ? 'refusal' : stopReasonOf(this.finishReason),
      usage: this.counted(),
      ...(invalid.size > 0 ? { invalidToolInputs: invalid } : {}),
    };
  }
}
