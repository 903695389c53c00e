/**
 * A model that takes notes, one tool call per turn, for the long-run tests:
 * served by the local Messages or Chat Completions server (fake-anthropic.ts,
 * fake-openai.ts), whose context window is small, so that a run of a few dozen
 * turns outgrows it. It answers a compaction's summary call (its request ends
 * on SUMMARY_PROMPT) with a summary, and counts the turns it has given across
 * runs and processes, so a run continued from a summary goes on counting.
 */
import { SUMMARY_PROMPT } from '../../src/agent/compaction.js';
import type { AnthropicReply, RecordedRequest } from './fake-anthropic.js';
import type { OpenAIReply } from './fake-openai.js';

/** What the note tool's input carries beside its number, so each turn adds some two hundred tokens. */
export const NOTE_PAD = 'x'.repeat(300);

/** The config's tool: echo the note back. */
export const NOTE_TOOL = `tools:
  - name: note
    description: Take a note
    input_schema: { type: object, properties: { text: { type: string } } }
    command: [echo, noted, "{{text}}"]
`;

/** The text of a Messages or Chat Completions request's last user turn (its last text part). */
export function lastUserText(json: any): string {
  const messages: any[] = json?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const texts = (m.content as any[]).filter((b) => b.type === 'text').map((b) => b.text as string);
    if (texts.length > 0) return texts[texts.length - 1]!;
    return '';
  }
  return '';
}

export const isSummaryCall = (req: RecordedRequest): boolean => lastUserText(req.json) === SUMMARY_PROMPT;

/** The summary the note-taker writes when asked for one: it says how many notes it took. */
export const summaryText = (turns: number): string => `Goal: take notes. ${turns} notes taken so far; the next is note ${turns + 1}.`;

/** The text of the first user turn of a request (a continuation's: its summary and kept exchanges). */
export function firstUserText(json: any): string {
  const first = json?.messages?.find((m: any) => m.role === 'user');
  if (first === undefined) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content as any[]).filter((b) => b.type === 'text').map((b) => b.text as string).join('\n');
}

export interface NoteTaker {
  /** Model turns given so far (summaries aside). */
  turns: number;
  /** Summary calls answered. */
  summaries: number;
}

/** The note-taker on the Messages API: `total` tool turns, then its answer. */
export function anthropicNoteTaker(
  total: number,
  state: NoteTaker = { turns: 0, summaries: 0 },
  /** Characters added to each summary: a summary too long for the window. */
  summaryPad = 0,
): { state: NoteTaker; handler: (req: RecordedRequest) => AnthropicReply } {
  return {
    state,
    handler: (req) => {
      if (isSummaryCall(req)) {
        state.summaries++;
        return { message: { content: [{ type: 'text', text: `${summaryText(state.turns)}${' y'.repeat(summaryPad / 2)}` }], usage: { output_tokens: 20 } } };
      }
      state.turns++;
      if (state.turns > total) return { message: { content: [{ type: 'text', text: `Done: ${total} notes.` }] } };
      return { message: { content: [{ type: 'tool_use', id: `toolu_${state.turns}`, name: 'note', input: { text: `${state.turns} ${NOTE_PAD}` } }] } };
    },
  };
}

/** The note-taker on Chat Completions. */
export function openaiNoteTaker(total: number, state: NoteTaker = { turns: 0, summaries: 0 }): { state: NoteTaker; handler: (req: RecordedRequest) => OpenAIReply } {
  return {
    state,
    handler: (req) => {
      if (isSummaryCall(req)) {
        state.summaries++;
        return { chat: { content: summaryText(state.turns), usage: { completion_tokens: 20 } } };
      }
      state.turns++;
      if (state.turns > total) return { chat: { content: `Done: ${total} notes.` } };
      return { chat: { tool_calls: [{ id: `call_${state.turns}`, name: 'note', arguments: JSON.stringify({ text: `${state.turns} ${NOTE_PAD}` }) }] } };
    },
  };
}
