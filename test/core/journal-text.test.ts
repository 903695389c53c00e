/**
 * takeRecords, the decoding of a whole load: the records decodeLines gives,
 * each line dropped once it is decoded, and a damaged line named by its number.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeLines, journalLines, takeRecords } from '../../src/core/index.js';

const fixture = (name: string): string[] => journalLines(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'conformance', 'runs', `${name}.jsonl`), 'utf8')).lines;

describe('takeRecords', () => {
  it('gives the records decodeLines gives and leaves none of the lines held', () => {
    for (const name of ['completed', 'escapes-and-raw', 'pending-batch', 'paused-turn']) {
      const lines = fixture(name);
      const expected = decodeLines(lines, name);
      expect(takeRecords([...lines], name)).toEqual(expected);
      const taken = [...lines];
      takeRecords(taken, name);
      expect(taken).toEqual([]);
    }
  });

  it('refuses a damaged line as corrupt, naming the source and its line number', () => {
    const lines = fixture('corrupt-interior');
    expect(() => takeRecords([...lines], 'run x')).toThrow(/^run x line 2 is corrupt: not a JSON record/);
  });
});
