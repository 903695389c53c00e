import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elementSpans, skipSpace } from '../../src/core/json-scan.js';
import { canonicalRawText, rawMembers } from '../../src/core/index.js';

describe('rawMembers', () => {
  it('gives each member of any JSON object as text that parses to its value, in any spacing', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(0, 2, '\t'), (object, space) => {
        const text = JSON.stringify(object, null, space);
        for (const form of [text, canonicalRawText(text)]) {
          const members = rawMembers(form)!;
          expect([...members.keys()]).toEqual(Object.keys(object));
          // Compared as JSON carries it (-0 is written 0).
          for (const [key, value] of members) expect(JSON.parse(value)).toEqual(JSON.parse(JSON.stringify(object[key])));
        }
      }),
    );
  });

  it('keeps every value as spelled, and a repeated key its last value', () => {
    const members = rawMembers(' { "n" : 1.0 , "big":12345678901234567890123,"e":-1E+2,"s":"a\\"}\\\\","o":{"x":[1.50,"]"]},"n":2.50 } ');
    expect(Object.fromEntries(members!)).toEqual({ n: '2.50', big: '12345678901234567890123', e: '-1E+2', s: '"a\\"}\\\\"', o: '{"x":[1.50,"]"]}' });
  });

  it('is null for anything but an object', () => {
    for (const text of ['[1]', '"{}"', '1', 'null', ' true']) expect(rawMembers(text)).toBeNull();
    expect(rawMembers('{}')).toEqual(new Map());
  });
});

describe('elementSpans', () => {
  it('gives the span of each element of any JSON array, in any spacing', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(0, 2, '\t'), (array, space) => {
        const text = ` ${JSON.stringify(array, null, space)} `;
        const spans = elementSpans(text, skipSpace(text, 0));
        // Compared as JSON carries it (-0 is written 0).
        expect(spans.map(([from, to]) => JSON.parse(text.slice(from, to)))).toEqual(JSON.parse(JSON.stringify(array)));
      }),
    );
  });

  it('ends a string only at an unescaped quote', () => {
    const text = '["a\\"],", "\\\\", "\\\\\\"]" ,1]';
    expect(elementSpans(text, 0).map(([from, to]) => text.slice(from, to))).toEqual(['"a\\"],"', '"\\\\"', '"\\\\\\"]"', '1']);
  });
});
