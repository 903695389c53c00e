/**
 * How much of a tool's output the model gets, a command's and an MCP server's
 * alike: at most `max_output` bytes of UTF-8, cut on a character boundary, and
 * a last line that says how many bytes were cut, so the model knows it has not
 * seen everything and a result cannot grow the journal and every later request
 * without bound.
 */

/**
 * The length of `bytes` without a UTF-8 sequence cut short at its end: the last
 * lead byte's sequence is dropped when fewer continuation bytes follow it than
 * it announces. Invalid bytes are left for the decoder to replace.
 */
function wholeCharacters(bytes: Buffer): number {
  const end = bytes.length;
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const b = bytes[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return end - i < size ? i : end;
  }
  return end;
}

/**
 * The text of output whose first bytes are `kept` and whose next `omitted`
 * bytes were cut: when any were, the cut falls on a character boundary (the
 * first bytes of a character it would split are cut with the rest) and a line
 * saying how many bytes are missing ends it.
 */
export function keptOutput(kept: Buffer, omitted: number): string {
  if (omitted === 0) return kept.toString('utf8');
  const whole = wholeCharacters(kept);
  return `${kept.subarray(0, whole).toString('utf8')}\n[output truncated: ${omitted + kept.length - whole} more bytes]`;
}

/** `text` cut to at most `maxBytes` bytes of UTF-8, by the rule above. */
export function cutOutput(text: string, maxBytes: number): string {
  // A string of n UTF-16 units is at most 3n bytes: short text needs no encoding to know it fits.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return keptOutput(bytes.subarray(0, maxBytes), bytes.length - maxBytes);
}
