/**
 * Puts raw JSON text (a tool input, a provider block) into a JSON document without
 * parsing it: the document is serialized with unique stand-in strings, which are
 * then replaced by the raw text. So `1.0`, big integers and key order reach the
 * API exactly as the journal holds them.
 */
import { randomUUID } from 'node:crypto';
import { escapeTerminalControls } from '../../core/index.js';

/**
 * How util.inspect (and so console, the provider SDKs' default logger) shows a
 * slot: as the raw text spliced in for it, where it would show the stand-in
 * (an empty array, or `[Array]` past its depth): the bytes sent, but for the
 * terminal controls a model's text can hold raw in a JSON string, written as
 * \u escapes (the same value), as a terminal is never given them. Asked only
 * when something is inspected (a debug log): nothing is done for it otherwise.
 */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

export class RawSplicer {
  /** Random per splicer, so no string a user or model wrote can look like a stand-in. */
  private readonly tag = `\u0000raw-${randomUUID()}:`;
  private readonly texts: string[] = [];

  /** A value that JSON.stringify writes as a stand-in for `rawText` (one JSON value). */
  slot(rawText: string): unknown {
    const stand = this.standIn(rawText);
    return { toJSON: () => stand, [INSPECT]: () => escapeTerminalControls(rawText) };
  }

  /**
   * An empty array that JSON.stringify writes as a stand-in for `rawText` (a
   * JSON array): for a place where code that walks the value before it is
   * serialized expects an array (and so finds nothing in it to walk).
   */
  arraySlot(rawText: string): unknown[] {
    const stand = this.standIn(rawText);
    return Object.assign([], { toJSON: () => stand, [INSPECT]: () => escapeTerminalControls(rawText) });
  }

  private standIn(rawText: string): string {
    return this.tag + String(this.texts.push(rawText) - 1);
  }

  /** JSON text with every stand-in replaced by its raw text. */
  splice(json: string): string {
    if (this.texts.length === 0) return json;
    const quoted = JSON.stringify(this.tag).slice(0, -1); // the tag as JSON writes it, opening quote included
    let out = '';
    let from = 0;
    for (let at = json.indexOf(quoted); at !== -1; at = json.indexOf(quoted, from)) {
      const end = json.indexOf('"', at + quoted.length);
      const index = Number(json.slice(at + quoted.length, end));
      out += json.slice(from, at) + this.texts[index]!;
      from = end + 1;
    }
    return out + json.slice(from);
  }

  /** JSON.stringify, then splice. */
  stringify(value: unknown): string {
    return this.splice(JSON.stringify(value));
  }
}
