/**
 * A provider SDK's own warnings: the Anthropic SDK writes one with
 * console.warn on every request to a deprecated model, or with a thinking
 * setting the model deprecates. Written straight to stderr, it lands in the
 * middle of whatever a terminal shows there (a spinner's line). The SDK warns
 * synchronously while a request is made, so console.warn is swapped for the
 * length of that call alone, and what it says goes to the listener instead.
 */

/** Told each warning a provider SDK gives, as text. */
export type SdkWarningListener = (message: string) => void;

/** `make()`, with what the SDK warns of during it told to `onWarning` (or, without one, written as the SDK would). */
export function withSdkWarnings<T>(make: () => T, onWarning: SdkWarningListener | undefined): T {
  if (onWarning === undefined) return make();
  const warn = console.warn;
  console.warn = (...args: unknown[]) => onWarning(args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '));
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}
