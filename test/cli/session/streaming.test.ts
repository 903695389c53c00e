/**
 * HeldOutput: what is held is written as the UTF-8 of its parts joined, byte
 * for byte, whether a part is added as text or as ASCII copied as it is, and
 * wherever the parts fall across the ends of its batches.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeldOutput } from '../../../src/cli/session/streaming.js';

/** The bytes `out` writes to stdout. */
async function written(out: HeldOutput): Promise<Buffer> {
  const chunks: Buffer[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(Buffer.from(chunk));
    return true;
  });
  await out.writeOut();
  vi.restoreAllMocks();
  return Buffer.concat(chunks);
}

afterEach(() => vi.restoreAllMocks());

const MIB = 1024 * 1024;
const ascii = fc.string({ unit: fc.constantFrom('a', '"', '\\', 'n', ' ', '\u0000', '~'), maxLength: 40 });
const wide = fc.string({ unit: fc.constantFrom('a', 'é', '日', '😀', '\u2028'), maxLength: 40 });

describe('HeldOutput', () => {
  it('writes the UTF-8 of its text and ASCII parts joined, for random parts across batch ends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(ascii.map((s) => ({ s, ascii: true })), wide.map((s) => ({ s, ascii: false }))), { maxLength: 30 }),
        fc.nat(MIB),
        fc.nat(2 * MIB),
        async (parts, before, long) => {
          // A part that fills most of a batch first, and one longer than a batch among them, so parts fall across batch ends.
          const all = [{ s: 'x'.repeat(before), ascii: before % 2 === 0 }, ...parts.slice(0, 15), { s: 'y'.repeat(long), ascii: long % 2 === 0 }, ...parts.slice(15)];
          const out = new HeldOutput();
          for (const { s, ascii: isAscii } of all) {
            if (isAscii) out.addAscii(s);
            else out.add(s);
          }
          expect((await written(out)).equals(Buffer.from(all.map((p) => p.s).join(''), 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });
});
