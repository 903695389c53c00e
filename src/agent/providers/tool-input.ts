/**
 * A tool call's input as the model streamed it. Text that does not parse is the
 * model's mistake, one it can correct: the call is journaled with `{}` as its
 * input (a record holds JSON, and the APIs take an object back), and what was
 * wrong goes with the response, for the run to answer the call with it.
 */
import { RawJson } from '../../core/index.js';

/** The longest start of the text quoted in what was wrong. */
const QUOTED = 200;

export interface ToolInput {
  input: RawJson;
  /** Why the text is not the input, when it is not JSON. */
  problem?: string;
}

/** `text` as the input; `cutShort`: the reply stopped at max_tokens, the likely reason text breaks off. */
export function toolInput(text: string, cutShort: boolean): ToolInput {
  try {
    return { input: RawJson.fromText(text) };
  } catch (err) {
    const reason = (err as Error).message.replace(/^not valid JSON: /, '');
    const start = [...text].slice(0, QUOTED).join('');
    const quoted = `${JSON.stringify(start)}${start.length < text.length ? ' (cut here)' : ''}`;
    return {
      input: RawJson.fromText('{}'),
      problem: `its input is not valid JSON (${reason})${cutShort ? ', cut off where the reply reached max_tokens' : ''}; it was ${quoted}`,
    };
  }
}
