/**
 * The raw splicer: how a slot is shown where it is inspected (a provider SDK's
 * debug log), as well as what it splices into the JSON sent.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RawSplicer } from '../../../src/agent/providers/raw-splice.js';

/** Raw JSON a model could have written: a C1 CSI, a bidi override, a zero-width space, held raw in its strings. */
const RAW = '{"text":"a\u009b31m\u202eb\u200b","n":1.0}';

describe('a raw slot, inspected', () => {
  it('shows the raw text it stands for, its terminal controls escaped (the value the same), where JSON has it whole', () => {
    const splicer = new RawSplicer();
    const slots = { one: splicer.slot(RAW), many: splicer.arraySlot(`[${RAW}]`) };
    expect(inspect(slots.one)).toBe('{"text":"a\\u009b31m\\u202eb\\u200b","n":1.0}');
    expect(inspect(slots.many)).toBe('[{"text":"a\\u009b31m\\u202eb\\u200b","n":1.0}]');
    // What is sent is the raw text as it is.
    expect(splicer.stringify(slots)).toBe(`{"one":${RAW},"many":[${RAW}]}`);
  });
});
