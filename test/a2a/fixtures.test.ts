/**
 * Every body the reference's own message code made decodes, passes logbook's
 * schemas, and encodes back to the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { decodeAnyMessage, decodeMessage, encodeMessage, kindOf, schemaProblem } from '../../src/a2a/index.js';
import { fixtureBodies } from '../helpers/a2a.js';

describe('the reference fixtures', () => {
  const bodies = fixtureBodies();

  it('hold all the direct-call kinds and a task exchange', () => {
    const kinds = bodies.map((b) => kindOf((JSON.parse(b.body) as { protocol: string }).protocol));
    expect(new Set(kinds)).toEqual(new Set(['discovery.request', 'discovery.reply', 'tool.request', 'tool.reply', 'request', 'ack', 'event', 'result']));
  });

  it.each(bodies.map((b, i) => [i + 1, b] as const))('body %i decodes, validates and encodes back byte for byte', (_i, { body }) => {
    const value = JSON.parse(body) as { protocol: string };
    const kind = kindOf(value.protocol)!;
    expect(schemaProblem(kind, value)).toBeNull();
    const message = decodeMessage(body, kind);
    expect(encodeMessage(message)).toBe(body);
    expect(encodeMessage(decodeAnyMessage(Buffer.from(body)) as never)).toBe(body);
  });
});
