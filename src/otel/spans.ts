/**
 * A run as OpenTelemetry spans, following the GenAI semantic conventions
 * (semconv.ts): a pure projection of its records and of the times kept beside
 * them (core timing), never a second source of truth. One trace per run, its
 * id derived from the run id, and each span's id from the run id and the record
 * that ends it, so exporting a run twice sends the same trace:
 *
 * - `invoke_agent`, the root: from the run's first kept time to its last;
 * - `chat {model}` for each model call (an assistant record);
 * - `execute_tool {name}` for each tool call (a tool_result record), an error
 *   result with error status.
 *
 * A step whose times are not kept (a copied prefix, a run the reference wrote,
 * a time lost) has no span: nothing is invented. Prompt and output text, tool
 * arguments and results are on the spans only with `captureContent`.
 *
 * A live export sees records one at a time as they become durable, and their
 * times a little later (they are read from the store in batches): SpanProjector
 * takes what each span needs of the run as its record arrives (`describe`), and
 * makes the span once the times are read (`span`). An export after the fact
 * does the same over the whole run (runSpans).
 */
import { createHash } from 'node:crypto';
import type { Attributes, SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  initialState,
  step as foldStep,
  stepStartAfter,
  withheldKind,
  type Block,
  type Counters,
  type Fingerprint,
  type Interval,
  type JournalRecord,
  type Message,
  type RunState,
  type RunTimes,
} from '../core/index.js';
import { hrTimeDuration, millisToHrTime, SpanKind, SpanStatusCode, TraceFlags } from './sdk.js';
import * as sc from './semconv.js';

/** A tool's policy as the config says it, where the config is at hand. */
export interface ToolPolicyFacts {
  sideEffects: boolean;
  confirm: boolean;
}

/** What every span of a run is made with. */
export interface TraceContext {
  /** The conversation's first run: gen_ai.conversation.id. */
  conversationId: string;
  /** Prompt and output text, tool arguments and results as span attributes (otel.capture_content). */
  captureContent: boolean;
  /** The config's policy for a tool, by name; undefined where it is not known. */
  policy?: (name: string) => ToolPolicyFacts | undefined;
  resource: Resource;
  scope: InstrumentationScope;
}

const hex = (text: string, chars: number): string => createHash('sha256').update(text).digest('hex').slice(0, chars);

/** The run's trace id: the same for every export of it. */
export function traceIdOf(runId: string): string {
  const id = hex(`logbook trace ${runId}`, 32);
  return /^0+$/.test(id) ? `${id.slice(0, 31)}1` : id;
}

/** The id of the span record `seq` ends (or the root's, for `root`). */
export function spanIdOf(runId: string, what: number | 'root'): string {
  const id = hex(`logbook span ${runId} ${what}`, 16);
  return /^0+$/.test(id) ? `${id.slice(0, 15)}1` : id;
}

/** The provider as the conventions name it (a known one), else logbook's own name for it. */
function providerName(provider: string): string {
  if (provider === 'anthropic') return sc.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC;
  if (provider === 'openai') return sc.GEN_AI_PROVIDER_NAME_VALUE_OPENAI;
  return `logbook.${provider}`;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A conversation in the conventions' message form (gen_ai.input.messages / output.messages), as a JSON string. */
function messagesJson(messages: readonly Message[], finishReason?: string): string {
  const parts = (content: readonly Block[]): unknown[] =>
    content.flatMap((b): unknown[] => {
      if ('text' in b) return [{ type: 'text', content: b.text.text }];
      if ('thinking' in b) return b.thinking.text ? [{ type: 'reasoning', content: b.thinking.text }] : [];
      if ('tool_use' in b) return [{ type: 'tool_call', id: b.tool_use.id, name: b.tool_use.name, arguments: parseOrText(b.tool_use.input.text) }];
      if ('tool_result' in b) return [{ type: 'tool_call_response', id: b.tool_result.tool_use_id, response: b.tool_result.content }];
      return [];
    });
  return JSON.stringify(
    messages.map((m) => {
      const role = m.role === 'user' && m.content.length > 0 && m.content.every((b) => 'tool_result' in b) ? 'tool' : m.role;
      return finishReason !== undefined ? { role, parts: parts(m.content), finish_reason: finishReason } : { role, parts: parts(m.content) };
    }),
  );
}

/** The input tokens as the conventions count them: cached ones included (Anthropic reports them apart, OpenAI within). */
function inputTokens(provider: string, a: { in_tokens: number; cache_read_tokens?: number; cache_create_tokens?: number }): number {
  return provider === 'anthropic' ? a.in_tokens + (a.cache_read_tokens ?? 0) + (a.cache_create_tokens ?? 0) : a.in_tokens;
}

interface SpanParts {
  name: string;
  kind: SpanKind;
  id: string;
  parent?: SpanContext;
  time: Interval;
  attributes: Attributes;
  error?: string;
}

/**
 * A model or tool call whose record is durable, with what its span needs of
 * the run as it stood then; the span is made once its times are known.
 */
export interface DescribedCall {
  seq: number;
  /** The record before it: where its step starts (core stepStartAfter). */
  after: { seq: number; terminal: boolean };
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  error?: string;
}

/** What a run is as spans go out: the run, and the state its records have folded to (for names and content). */
export class SpanProjector {
  readonly runId: string;
  readonly traceId: string;
  private readonly fp: Fingerprint;
  private readonly root: SpanContext;
  private common: Attributes;
  private readonly provider: string;
  /** Calls of the turns seen, by id: their tool's name and raw input. */
  private readonly calls = new Map<string, { name: string; input: string }>();
  private previous: { seq: number; terminal: boolean };
  /** The conversation so far, when content is captured (a model call's input). */
  private messages: readonly Message[];

  /** Starts from `state`: the run as folded through its last record so far (its meta alone for a run read whole). */
  constructor(
    state: RunState,
    private readonly context: TraceContext,
  ) {
    this.runId = state.run_id;
    this.fp = state.fingerprint;
    this.traceId = traceIdOf(this.runId);
    this.root = { traceId: this.traceId, spanId: spanIdOf(this.runId, 'root'), traceFlags: TraceFlags.SAMPLED };
    this.provider = providerName(this.fp.provider);
    this.common = {
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: this.provider,
      [sc.ATTR_GEN_AI_CONVERSATION_ID]: context.conversationId,
      [sc.ATTR_LOGBOOK_RUN_ID]: this.runId,
    };
    this.previous = { seq: state.last_seq, terminal: state.status !== 'open' };
    for (const b of state.pending?.assistant.content ?? []) if ('tool_use' in b) this.calls.set(b.tool_use.id, { name: b.tool_use.name, input: b.tool_use.input.text });
    this.messages = context.captureContent ? [...state.messages] : [];
  }

  /** Sets the conversation the run belongs to (gen_ai.conversation.id) of the spans made from now on. */
  conversation(id: string): void {
    this.common = { ...this.common, [sc.ATTR_GEN_AI_CONVERSATION_ID]: id };
  }

  /**
   * Takes record `record` in, the next after those seen; `after` is the run's
   * state with it folded in (for the conversation a model call was given).
   * Returns its call, for a model or tool call record.
   */
  describe(record: JournalRecord, after?: RunState): DescribedCall | null {
    const before = this.previous;
    this.previous = { seq: record.seq, terminal: 'terminal' in record };
    let call: DescribedCall | null = null;
    if ('assistant' in record) {
      const a = record.assistant;
      for (const b of a.message.content) if ('tool_use' in b) this.calls.set(b.tool_use.id, { name: b.tool_use.name, input: b.tool_use.input.text });
      const attributes: Attributes = {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_CHAT,
        [sc.ATTR_GEN_AI_REQUEST_MODEL]: this.fp.model,
        [sc.ATTR_GEN_AI_REQUEST_MAX_TOKENS]: this.fp.max_tokens,
        [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: inputTokens(this.fp.provider, a),
        [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: a.out_tokens,
        [sc.ATTR_LOGBOOK_SEQ]: record.seq,
        [sc.ATTR_LOGBOOK_ITERATION]: a.iteration,
      };
      if (a.cache_read_tokens) attributes[sc.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = a.cache_read_tokens;
      if (a.cache_create_tokens) attributes[sc.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = a.cache_create_tokens;
      if (a.stop_reason) attributes[sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [a.stop_reason];
      if (this.context.captureContent) {
        attributes[sc.ATTR_GEN_AI_INPUT_MESSAGES] = messagesJson(this.messages);
        attributes[sc.ATTR_GEN_AI_OUTPUT_MESSAGES] = messagesJson([a.message], a.stop_reason ?? '');
      }
      call = { seq: record.seq, after: before, name: `chat ${this.fp.model}`, kind: SpanKind.CLIENT, attributes };
    } else if ('tool_result' in record) {
      const t = record.tool_result;
      const known = this.calls.get(t.tool_use_id);
      const name = known?.name ?? '?';
      const attributes: Attributes = {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [sc.ATTR_GEN_AI_TOOL_NAME]: name,
        [sc.ATTR_GEN_AI_TOOL_CALL_ID]: t.tool_use_id,
        [sc.ATTR_GEN_AI_TOOL_TYPE]: 'function',
        [sc.ATTR_LOGBOOK_TOOL_REMOTE]: t.remote === true,
        [sc.ATTR_LOGBOOK_SEQ]: record.seq,
      };
      const policy = this.context.policy?.(name);
      if (policy !== undefined) {
        attributes[sc.ATTR_LOGBOOK_TOOL_SIDE_EFFECTS] = policy.sideEffects;
        attributes[sc.ATTR_LOGBOOK_TOOL_CONFIRM] = policy.confirm;
      }
      const withheld = withheldKind(t.result);
      if (withheld !== undefined) attributes[sc.ATTR_LOGBOOK_TOOL_WITHHELD] = withheld;
      const failed = t.result.is_error === true && withheld === undefined;
      if (failed) attributes[sc.ATTR_ERROR_TYPE] = 'tool_error';
      if (this.context.captureContent) {
        if (known !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = known.input;
        attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = t.result.content;
      }
      call = { seq: record.seq, after: before, name: `execute_tool ${name}`, kind: SpanKind.INTERNAL, attributes };
      if (failed) call.error = 'the tool returned an error result';
    }
    if (this.context.captureContent && after !== undefined) this.messages = [...after.messages];
    return call;
  }

  /** The call's span, when the times say when it ran; null when they do not. */
  span(call: DescribedCall, times: RunTimes): ReadableSpan | null {
    const start = stepStartAfter(call.after.seq, call.after.terminal, times);
    const end = times.records.get(call.seq);
    if (start === undefined || end === undefined || end < start) return null;
    const attributes = { ...this.common, ...call.attributes };
    const parts: SpanParts = { name: call.name, kind: call.kind, id: spanIdOf(this.runId, call.seq), parent: this.root, time: { start, end }, attributes };
    if (call.error !== undefined) parts.error = call.error;
    return this.readable(parts);
  }

  /**
   * The root span over `time` (the run from its first kept time to its last),
   * with what the run spent and how it stands (`state`, folded through its last record).
   */
  rootSpan(state: RunState, time: Interval): ReadableSpan {
    const c: Counters = state.counters;
    const input = this.fp.provider === 'anthropic' ? c.in_tokens + c.cache_read_tokens + c.cache_create_tokens : c.in_tokens;
    const attributes: Attributes = {
      ...this.common,
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: this.fp.model,
      [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: input,
      [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: c.out_tokens,
      [sc.ATTR_LOGBOOK_RUN_STATUS]: state.status,
    };
    if (this.context.captureContent && state.prompt !== '') {
      attributes[sc.ATTR_GEN_AI_INPUT_MESSAGES] = messagesJson([{ role: 'user', content: [{ text: { text: state.prompt } }] }]);
    }
    const parts: SpanParts = { name: sc.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, kind: SpanKind.INTERNAL, id: this.root.spanId, time, attributes };
    if (state.status === 'error') {
      parts.error = state.terminal?.message ?? 'the run failed';
      attributes[sc.ATTR_ERROR_TYPE] = 'run_error';
    }
    return this.readable(parts);
  }

  private readable(parts: SpanParts): ReadableSpan {
    const context: SpanContext = { traceId: this.traceId, spanId: parts.id, traceFlags: TraceFlags.SAMPLED };
    const startTime = millisToHrTime(parts.time.start);
    const endTime = millisToHrTime(parts.time.end);
    return {
      name: parts.name,
      kind: parts.kind,
      spanContext: () => context,
      ...(parts.parent !== undefined ? { parentSpanContext: parts.parent } : {}),
      startTime,
      endTime,
      duration: hrTimeDuration(startTime, endTime),
      status: parts.error !== undefined ? { code: SpanStatusCode.ERROR, message: parts.error } : { code: SpanStatusCode.UNSET },
      attributes: parts.attributes,
      links: [],
      events: [],
      ended: true,
      resource: this.context.resource,
      instrumentationScope: this.context.scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  }
}

/** When the run happened as far as `times` say: from its first kept time to its last. */
export function runInterval(times: RunTimes, spans: readonly ReadableSpan[]): Interval | null {
  let start = Infinity;
  let end = -Infinity;
  const take = (t: number): void => {
    if (t < start) start = t;
    if (t > end) end = t;
  };
  for (const t of times.records.values()) take(t);
  for (const t of times.resumed.values()) take(t);
  for (const s of spans) take(s.startTime[0] * 1000 + s.startTime[1] / 1e6);
  return start === Infinity ? null : { start, end };
}

export interface TraceSpans {
  /** The run's root span; null when no kept time says when the run happened. */
  root: ReadableSpan | null;
  /** The model and tool call spans, in journal order. */
  children: ReadableSpan[];
  /** Model and tool calls left out for want of kept times. */
  untimed: number;
}

/** A whole run's spans (an export after the fact). Pure: the same records and times give the same spans. */
export function runSpans(records: readonly JournalRecord[], times: RunTimes, context: TraceContext): TraceSpans {
  const meta = records[0];
  if (meta === undefined) return { root: null, children: [], untimed: 0 };
  let state = initialState(meta);
  const projector = new SpanProjector(state, context);
  const children: ReadableSpan[] = [];
  let untimed = 0;
  for (let i = 1; i < records.length; i++) {
    state = foldStep(state, records[i]!);
    const call = projector.describe(records[i]!, state);
    if (call === null) continue;
    const span = projector.span(call, times);
    if (span === null) untimed++;
    else children.push(span);
  }
  const interval = runInterval(times, children);
  return { root: interval === null ? null : projector.rootSpan(state, interval), children, untimed };
}
