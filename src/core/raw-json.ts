import { LogbookError } from './errors.js';
import { canonicalRawText } from './json-text.js';

/**
 * JSON carried as text (tool `input`, provider `raw`). It is never parsed into JS
 * values and re-serialized on the way through a journal, so key order, big
 * integers and number spellings such as `1.0` survive byte for byte.
 */
export class RawJson {
  private constructor(
    /** Canonical JSON text: compact, with the format's extra escapes. */
    readonly text: string,
  ) {}

  /** From JSON text as received (a provider's bytes, a journal line); validated. */
  static fromText(text: string): RawJson {
    try {
      JSON.parse(text);
    } catch (err) {
      throw new LogbookError('corrupt', `not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    return new RawJson(canonicalRawText(text));
  }

  /**
   * From text already known to be one well-formed JSON value, such as a span of a
   * line that JSON.parse accepted as a whole. Skips re-validation on the hot path.
   */
  static fromValidText(text: string): RawJson {
    return new RawJson(canonicalRawText(text));
  }

  /**
   * From the text a RawJson held (its `text`, already canonical), kept whole
   * where its integrity is checked otherwise (a fold checkpoint whose body
   * digest matched): taken as it is, not made canonical again. Not for a
   * library's caller, whose text is not known to be canonical. @internal
   */
  static fromCanonicalText(text: string): RawJson {
    return new RawJson(text);
  }

  /** From a JS value (a tool's input built in code). */
  static fromValue(value: unknown): RawJson {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError('value has no JSON representation');
    return new RawJson(canonicalRawText(text));
  }

  /** The value as plain JS (big integers lose precision here, not in the journal). */
  value(): unknown {
    return JSON.parse(this.text);
  }

  /** Whether the two hold the same JSON text, byte for byte. */
  equals(other: RawJson): boolean {
    return this.text === other.text;
  }

  /** The JSON text, as written. */
  toString(): string {
    return this.text;
  }
}
