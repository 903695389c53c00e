/**
 * A tool result's output kept as the string literal its journal line spells it
 * with (result-line.ts reads such lines), decoded only when read. A reader
 * that writes the output again (`session show --json`) then neither parses it
 * nor spells it anew: most of a long run's bytes are tool outputs.
 */
import type { ToolResultBody } from './records.js';

/**
 * A tool result whose output is the literal of its journal line, decoded the
 * first time `content` is read. Its `literal` is what every encoder writes
 * for that output (encode.ts writes it as it is). A message keeps the body
 * itself (fold.ts toolResultsMessage), so an output written again and never
 * read is never decoded.
 */
export class LiteralOutput implements ToolResultBody {
  private decoded: string | undefined;
  declare readonly is_error?: true;

  constructor(
    readonly tool_use_id: string,
    /** The output's string literal, quotes included. */
    readonly literal: string,
    isError: boolean,
  ) {
    if (isError) this.is_error = true;
  }

  get content(): string {
    return (this.decoded ??= JSON.parse(this.literal) as string);
  }

  /** As a decoded body stringifies. */
  toJSON(): ToolResultBody {
    return this.is_error ? { tool_use_id: this.tool_use_id, content: this.content, is_error: true } : { tool_use_id: this.tool_use_id, content: this.content };
  }
}
