/**
 * A JSON text judged a piece at a time, never held whole: whether it is one
 * JSON value as JSON.parse reads it (whitespace around it allowed), and its
 * outline, the same value with every string longer than OUTLINE_STRING_CHARS
 * cut to its first that many characters (whitespace outside strings dropped).
 * An outline of a journal line decodes to the same kind of record, with the
 * same seq, status and structure, so a reader that needs only those (a
 * listing's status, an append's last seq) can take a line of any length in
 * bounded memory.
 */

/** Characters of a string an outline keeps; long enough for every id, reason, role and signature. */
export const OUTLINE_STRING_CHARS = 64 * 1024;

const enum S {
  /** A value is due (at the top, after `:`, after `,` in an array). */
  Value,
  /** After `[`: a value or `]`. */
  ValueOrEnd,
  /** After `{`: a key or `}`. */
  KeyOrEnd,
  /** After `,` in an object: a key. */
  Key,
  /** After a key: `:`. */
  Colon,
  /** After a value: `,`, a closing bracket, or (at the top) the end. */
  After,
  String,
  Escape,
  Unicode,
  Number,
  Literal,
  Done,
  Invalid,
}

const enum N {
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** The characters that end a run of plain string content: a quote, a backslash, a control character. */
const STRING_STOP = /["\\\u0000-\u001f]/g;
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

export class JsonOutline {
  private state = S.Value;
  /** Open containers, innermost last: true for an object. */
  private readonly stack: boolean[] = [];
  private stringIsKey = false;
  /** Characters of the current string kept so far (an escape counts whole). */
  private kept = 0;
  private hex = 0;
  private escape = '';
  private number = N.Minus;
  private literal = '';
  private literalAt = 0;
  private out = '';
  private overflowed = false;

  /** `maxOutline`: past this many characters the outline is given up (null), the judging goes on. */
  constructor(private readonly maxOutline: number = 1024 * 1024) {}

  private emit(text: string): void {
    if (this.overflowed) return;
    this.out += text;
    if (this.out.length > this.maxOutline) {
      this.overflowed = true;
      this.out = '';
    }
  }

  /** The next piece of the text. */
  push(text: string): void {
    let i = 0;
    while (i < text.length && this.state !== S.Invalid) {
      if (this.state === S.String) {
        STRING_STOP.lastIndex = i;
        const m = STRING_STOP.exec(text);
        const stop = m === null ? text.length : m.index;
        if (stop > i) {
          if (this.kept < OUTLINE_STRING_CHARS) this.emit(text.slice(i, Math.min(stop, i + OUTLINE_STRING_CHARS - this.kept)));
          this.kept += stop - i;
        }
        if (m === null) return;
        const c = text.charCodeAt(stop);
        if (c === 0x22) {
          this.emit('"');
          this.state = this.stringIsKey ? S.Colon : this.closeValue();
        } else if (c === 0x5c) {
          this.state = S.Escape;
        } else {
          this.state = S.Invalid; // a raw control character
        }
        i = stop + 1;
        continue;
      }
      const c = text.charCodeAt(i);
      switch (this.state) {
        case S.Escape:
          if (c === 0x75 /* u */) {
            this.state = S.Unicode;
            this.hex = 0;
            this.escape = '\\u';
          } else if (ESCAPES.has(c)) {
            this.keepEscape(`\\${text[i]}`);
            this.state = S.String;
          } else {
            this.state = S.Invalid;
          }
          break;
        case S.Unicode:
          if (!isHex(c)) {
            this.state = S.Invalid;
            break;
          }
          this.escape += text[i];
          if (++this.hex === 4) {
            this.keepEscape(this.escape);
            this.state = S.String;
          }
          break;
        case S.Number:
          if (this.numberGoesOn(c)) {
            this.emit(text[i]!);
          } else if (this.number === N.Zero || this.number === N.Int || this.number === N.Frac || this.number === N.Exp) {
            this.state = this.closeValue();
            continue; // the character after the number is judged as such
          } else {
            this.state = S.Invalid;
          }
          break;
        case S.Literal:
          if (c !== this.literal.charCodeAt(this.literalAt)) {
            this.state = S.Invalid;
          } else if (++this.literalAt === this.literal.length) {
            this.emit(this.literal);
            this.state = this.closeValue();
          }
          break;
        default:
          if (!isSpace(c)) this.structure(c, text[i]!);
      }
      i++;
    }
  }

  /** Keeps an escape sequence of a string, whole, while the string is short enough: it counts as one character. */
  private keepEscape(sequence: string): void {
    if (this.kept < OUTLINE_STRING_CHARS) this.emit(sequence);
    this.kept++;
  }

  private numberGoesOn(c: number): boolean {
    const d = isDigit(c);
    switch (this.number) {
      case N.Minus:
        if (c === 0x30) this.number = N.Zero;
        else if (d) this.number = N.Int;
        else return false;
        return true;
      case N.Zero:
      case N.Int:
        if (d && this.number === N.Int) return true;
        if (c === 0x2e) this.number = N.Dot;
        else if (c === 0x65 || c === 0x45) this.number = N.E;
        else return false;
        return true;
      case N.Dot:
      case N.Frac:
        if (d) this.number = N.Frac;
        else if (this.number === N.Frac && (c === 0x65 || c === 0x45)) this.number = N.E;
        else return false;
        return true;
      case N.E:
        if (c === 0x2b || c === 0x2d) this.number = N.ESign;
        else if (d) this.number = N.Exp;
        else return false;
        return true;
      case N.ESign:
      case N.Exp:
        if (!d) return false;
        this.number = N.Exp;
        return true;
    }
  }

  /** A structural character (whitespace aside) in a state between tokens. */
  private structure(c: number, ch: string): void {
    const s = this.state;
    const valueDue = s === S.Value || s === S.ValueOrEnd;
    if (valueDue && (c === 0x7b || c === 0x5b)) {
      this.stack.push(c === 0x7b);
      this.emit(ch);
      this.state = c === 0x7b ? S.KeyOrEnd : S.ValueOrEnd;
    } else if ((s === S.ValueOrEnd && c === 0x5d) || (s === S.KeyOrEnd && c === 0x7d)) {
      this.stack.pop();
      this.emit(ch);
      this.state = this.closeValue();
    } else if (c === 0x22 && (valueDue || s === S.KeyOrEnd || s === S.Key)) {
      this.stringIsKey = !valueDue;
      this.kept = 0;
      this.emit('"');
      this.state = S.String;
    } else if (valueDue && (c === 0x2d || isDigit(c))) {
      this.number = c === 0x2d ? N.Minus : c === 0x30 ? N.Zero : N.Int;
      this.emit(ch);
      this.state = S.Number;
    } else if (valueDue && (c === 0x74 || c === 0x66 || c === 0x6e)) {
      this.literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      this.literalAt = 1;
      this.state = S.Literal;
    } else if (s === S.Colon && c === 0x3a) {
      this.emit(':');
      this.state = S.Value;
    } else if (s === S.After && c === 0x2c && this.stack.length > 0) {
      this.emit(',');
      this.state = this.stack[this.stack.length - 1] ? S.Key : S.Value;
    } else if (s === S.After && (c === 0x7d || c === 0x5d) && this.stack.length > 0 && this.stack[this.stack.length - 1] === (c === 0x7d)) {
      this.stack.pop();
      this.emit(ch);
      this.state = this.closeValue();
    } else {
      this.state = S.Invalid;
    }
  }

  /** The state after a complete value. */
  private closeValue(): S {
    return this.stack.length === 0 ? S.Done : S.After;
  }

  /** The text so far can be no JSON value, whatever follows it: a reader may stop here. */
  get invalid(): boolean {
    return this.state === S.Invalid;
  }

  /** Whether the text was one JSON value, and its outline (null when it grew past the bound, or the text is not JSON). */
  finish(): { json: boolean; outline: string | null } {
    if (this.state === S.Number) this.push(' '); // a number ends with the text
    const json = this.state === S.Done;
    return { json, outline: json && !this.overflowed ? this.out : null };
  }
}

/** The outline of a whole text, for tests and small inputs. */
export function outlineJson(text: string, maxOutline?: number): { json: boolean; outline: string | null } {
  const o = new JsonOutline(maxOutline);
  o.push(text);
  return o.finish();
}
