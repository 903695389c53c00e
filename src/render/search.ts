/**
 * What a search looks in: a record's texts as a person reads them. A command
 * tool's result is searched as its output (not its JSON envelope, whose keys
 * every such result shares).
 */
import type { JournalRecord, Message } from '../core/index.js';
import { showResult } from './results.js';

/** Where in a run a match is. */
export type SearchRole = 'prompt' | 'assistant' | 'thinking' | 'tool_call' | 'tool_result' | 'user';

export interface SearchPlace {
  role: SearchRole;
  text: string;
}

const resultText = (content: string): string => showResult(content, false).output;

function messagePlaces(message: Message, role: 'assistant' | 'user', out: SearchPlace[]): void {
  for (const b of message.content) {
    if ('text' in b) out.push({ role, text: b.text.text });
    else if ('thinking' in b && b.thinking.text) out.push({ role: 'thinking', text: b.thinking.text });
    else if ('tool_use' in b) {
      // Its name, and its arguments as the JSON text the model wrote.
      out.push({ role: 'tool_call', text: b.tool_use.name }, { role: 'tool_call', text: b.tool_use.input.text });
    } else if ('tool_result' in b) out.push({ role: 'tool_result', text: resultText(b.tool_result.content) });
  }
}

/**
 * The texts of a record a search looks in: the prompt, the prose and thinking
 * of model turns, tool calls, tool results and typed follow-ups. A terminal
 * record has none.
 */
export function searchPlaces(record: JournalRecord): SearchPlace[] {
  const out: SearchPlace[] = [];
  if ('meta' in record) {
    if (record.meta.prompt !== '') out.push({ role: 'prompt', text: record.meta.prompt });
  } else if ('assistant' in record) messagePlaces(record.assistant.message, 'assistant', out);
  else if ('user' in record) messagePlaces(record.user.message, 'user', out);
  else if ('tool_result' in record) out.push({ role: 'tool_result', text: resultText(record.tool_result.result.content) });
  return out;
}
