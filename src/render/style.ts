/**
 * How a rendering marks up its parts. Renderers stay pure and produce text; the
 * CLI passes ANSI styling on a color terminal and `plain` everywhere else.
 * Styling is applied to text that is already sanitized.
 */
export interface Style {
  /** Headings and the run id. */
  strong(text: string): string;
  /** Thinking, secondary details. */
  faint(text: string): string;
  /** Tool calls. */
  call(text: string): string;
  /** Error results and failures. */
  bad(text: string): string;
  /** Status lines such as `continuing`. */
  note(text: string): string;
}

const same = (text: string): string => text;

export const plain: Style = { strong: same, faint: same, call: same, bad: same, note: same };
