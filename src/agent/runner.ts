/**
 * The agent loop. Its write order is the durability argument:
 *   - the assistant record is durable before any of its tools runs, so a crash in
 *     the middle of a batch never pays for that model call again;
 *   - one tool_result record is written as each tool completes (tools of a turn
 *     run one at a time, in order), so a crash loses at most one tool;
 *   - a user record only for a free-standing chat follow-up;
 *   - the terminal record once, at the true end.
 * A fresh run and a resumed one go through the same loop: a resume just starts
 * with a pending turn, a longer conversation and later counters.
 */
import {
  LogbookError,
  appendUserMessage,
  isLogbookError,
  toolResultsMessage,
  toolUses,
  type Counters,
  type ErrorCode,
  type Message,
  type PendingTurn,
  type TerminalReason,
  type ToolResultBody,
  type ToolUseBlock,
} from '../core/index.js';
import type { JournalWriter } from './journal-writer.js';
import type { Provider, ThinkingSetting, Usage } from './provider.js';
import type { ToolRegistry } from './tools/registry.js';

export interface AgentConfig {
  provider: Provider;
  tools: ToolRegistry;
  system: string;
  maxTokens: number;
  /** Model calls allowed: in all for a one-shot run, per typed turn for a chat. */
  maxIterations: number;
  /** Tokens (in + out) the run may spend in all. */
  budget?: number;
  thinking: ThinkingSetting;
  promptCache: boolean;
}

export type ToolCall = ToolUseBlock['tool_use'];

/** Progress, for narration. Every callback is optional. */
export interface RunObserver {
  modelStart?(iteration: number): void;
  text?(delta: string): void;
  thinking?(delta: string): void;
  /** An assistant turn, once it is durable. */
  assistant?(message: Message, usage: Usage, stopReason: string): void;
  toolStart?(call: ToolCall, resolved: string | undefined): void;
  /** A tool result, once it is durable. */
  toolEnd?(call: ToolCall, result: ToolResultBody): void;
  /** A journaled result reused on resume instead of running the tool again. */
  toolReused?(call: ToolCall, result: ToolResultBody): void;
  warning?(message: string): void;
  awaitingInput?(): void;
}

/** Where the loop starts: the beginning of a run, or a folded journal. */
export interface StartPoint {
  messages: readonly Message[];
  pending: PendingTurn | null;
  /** The iteration of the next model call. */
  iteration: number;
  counters: Counters;
  lastStopReason: string;
  resumed: boolean;
}

export interface ChatInput {
  /** The next line typed, or null at end of input. */
  next(): Promise<string | null>;
}

export interface RunOptions {
  writer: JournalWriter;
  interactive: boolean;
  observer?: RunObserver;
  /** Aborting it suspends the run: the record in progress finishes, the model call or tool in flight is dropped. */
  signal?: AbortSignal;
  input?: ChatInput;
}

export interface RunResult {
  reason: TerminalReason;
  /** Error text, for reason `error`, `budget` and `max_iterations`. */
  message?: string;
  /** For reason `error`: the code of the error that ended the run (`unavailable` when it was not a LogbookError). */
  code?: ErrorCode;
  /** True when a signal suspended the run (as opposed to a chat that was ended). */
  interrupted: boolean;
  /** The prose of the last assistant turn. */
  finalText: string;
  /** The committed conversation as the live loop built it (the fold must rebuild the same). */
  messages: Message[];
  counters: Counters;
}

/**
 * Told to the model on a resumed run only, appended after the fingerprint is
 * computed and never journaled. Advice, not enforcement.
 */
export const RESUME_REMINDER =
  '\n\nNote: this conversation was interrupted and is being resumed from its journal. ' +
  'Tool results in it may be stale: re-verify the current state before taking any state-changing action.';

/** Sent in place of a chat line that ends the session. */
export const EXIT_COMMAND = '/exit';

export function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  return message.content.flatMap((b) => ('text' in b ? [b.text.text] : [])).join('\n');
}

function interrupted(): LogbookError {
  return new LogbookError('interrupted', 'run suspended');
}

export async function runAgent(config: AgentConfig, start: StartPoint, options: RunOptions): Promise<RunResult> {
  const { writer, interactive, observer = {} } = options;
  const signal = options.signal ?? new AbortController().signal;
  const messages = [...start.messages];
  const counters = { ...start.counters };
  let pending = start.pending;
  let iteration = start.iteration;
  let lastStopReason = start.lastStopReason;
  // A chat grows its cap with every typed turn; only the position is journaled.
  let cap = interactive ? iteration + config.maxIterations : config.maxIterations;
  const system = start.resumed ? config.system + RESUME_REMINDER : config.system;
  const warn = (m: string): void => observer.warning?.(m);

  const finish = async (reason: TerminalReason, message?: string, wasInterrupted = false, code?: ErrorCode): Promise<RunResult> => {
    await writer.writeTerminal(message ? { reason, message } : { reason }, warn);
    const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
    const result: RunResult = { reason, interrupted: wasInterrupted, finalText: textOf(lastAssistant), messages, counters };
    if (message) result.message = message;
    if (code) result.code = code;
    return result;
  };

  /** Runs the pending turn's unanswered tools in order, journaling each, then commits the turn. */
  const completePending = async (turn: PendingTurn): Promise<void> => {
    const results = new Map(turn.results.map((r) => [r.tool_use_id, r]));
    for (const call of toolUses(turn.assistant)) {
      const journaled = results.get(call.id);
      if (journaled !== undefined) {
        observer.toolReused?.(call, journaled);
        continue;
      }
      if (signal.aborted) throw interrupted();
      observer.toolStart?.(call, config.tools.describe(call.name, call.input));
      const outcome = await config.tools.run(call.name, call.input, { signal });
      const result: ToolResultBody = { tool_use_id: call.id, content: outcome.content };
      if (outcome.isError) result.is_error = true;
      // A tool that finished is journaled even if a suspend arrived meanwhile: its effects happened.
      await writer.write({ tool_result: { tool_use_id: call.id, result } });
      results.set(call.id, result);
      counters.tool_calls++;
      observer.toolEnd?.(call, result);
    }
    messages.push(turn.assistant, toolResultsMessage(toolUses(turn.assistant).map((c) => results.get(c.id)!)));
  };

  /** The next chat line, or null when the chat is over (end of input, /exit, or a suspend). */
  const nextLine = async (): Promise<string | null> => {
    if (options.input === undefined) return null;
    for (;;) {
      observer.awaitingInput?.();
      const aborted = new Promise<null>((resolve) => {
        if (signal.aborted) resolve(null);
        signal.addEventListener('abort', () => resolve(null), { once: true });
      });
      const line = await Promise.race([options.input.next(), aborted]);
      if (line === null || signal.aborted) return null;
      const typed = line.trim();
      if (typed === EXIT_COMMAND) return null;
      if (typed !== '') return line;
    }
  };

  // Where does this run stand? Nothing pending and the conversation ending on a
  // finished assistant turn: a chat waits for input, a one-shot run is done.
  const last = messages[messages.length - 1];
  let awaitingInput = pending === null && last?.role === 'assistant' && lastStopReason !== 'pause_turn';
  if (awaitingInput && !interactive) return finish('completed');

  try {
    for (;;) {
      if (pending !== null) {
        await completePending(pending);
        pending = null;
      }

      if (awaitingInput) {
        const line = await nextLine();
        if (line === null) return finish('suspended', undefined, signal.aborted);
        const typed: Message = { role: 'user', content: [{ text: { text: line } }] };
        // If the follow-up cannot be journaled the session ends before the turn, so
        // the journal stops at its last coherent boundary.
        await writer.write({ user: { message: typed } });
        appendUserMessage(messages, typed);
        cap = iteration + config.maxIterations;
        awaitingInput = false;
      }

      if (signal.aborted) throw interrupted();
      if (iteration >= cap) {
        return finish('max_iterations', `stopped after ${config.maxIterations} model calls (max_iterations)`);
      }
      const spent = counters.in_tokens + counters.out_tokens;
      if (config.budget !== undefined && spent >= config.budget) {
        return finish('budget', `token budget spent: ${spent} of ${config.budget} tokens`);
      }

      observer.modelStart?.(iteration);
      const response = await config.provider.complete(
        {
          system,
          messages,
          tools: config.tools.definitions(),
          maxTokens: config.maxTokens,
          thinking: config.thinking,
          promptCache: config.promptCache,
          signal,
        },
        {
          onText: (d) => observer.text?.(d),
          onThinking: (d) => observer.thinking?.(d),
        },
      );
      const { usage } = response;
      await writer.write({
        assistant: {
          iteration,
          message: response.message,
          ...(response.stopReason ? { stop_reason: response.stopReason } : {}),
          in_tokens: usage.inTokens,
          out_tokens: usage.outTokens,
          ...(usage.cacheReadTokens !== undefined ? { cache_read_tokens: usage.cacheReadTokens } : {}),
          ...(usage.cacheCreateTokens !== undefined ? { cache_create_tokens: usage.cacheCreateTokens } : {}),
        },
      });
      counters.llm_calls++;
      counters.in_tokens += usage.inTokens;
      counters.out_tokens += usage.outTokens;
      counters.cache_read_tokens += usage.cacheReadTokens ?? 0;
      counters.cache_create_tokens += usage.cacheCreateTokens ?? 0;
      lastStopReason = response.stopReason;
      observer.assistant?.(response.message, usage, response.stopReason);

      if (toolUses(response.message).length > 0) {
        pending = { assistant: response.message, iteration, stop_reason: response.stopReason, results: [], answered: [] };
        iteration++;
        continue;
      }
      iteration++;
      messages.push(response.message);
      if (response.stopReason === 'pause_turn') continue; // the model resumes its own turn
      if (response.stopReason === 'max_tokens') warn('the model stopped at max_tokens; its answer may be cut short');
      if (!interactive) return finish('completed');
      awaitingInput = true;
    }
  } catch (err) {
    if (signal.aborted && (isLogbookError(err, 'interrupted') || isAbortError(err))) {
      return finish('suspended', undefined, true);
    }
    const message = err instanceof Error ? err.message : String(err);
    return finish('error', message, false, isLogbookError(err) ? err.code : 'unavailable');
  }
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}
