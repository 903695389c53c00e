import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIVE_INTERVAL_MS, LiveTextWriter } from '../../src/store/live-text.js';

describe('LiveTextWriter', () => {
  afterEach(() => vi.useRealTimers());

  it('clears nothing for a call that ended before any of its text was shown: the run does not wait on the store', async () => {
    vi.useFakeTimers();
    const puts: (string | null)[] = [];
    const writer = new LiveTextWriter(async (body) => void puts.push(body));
    writer.begin(1, 0);
    writer.text('Hello');
    await writer.end();
    expect(puts).toEqual([]);
    vi.advanceTimersByTime(LIVE_INTERVAL_MS * 20);
    expect(puts).toEqual([]); // nothing shown after the end either
  });

  it('clears what it showed when the call ends', async () => {
    vi.useFakeTimers();
    const puts: (string | null)[] = [];
    const writer = new LiveTextWriter(async (body) => void puts.push(body));
    writer.begin(1, 0);
    writer.text('Hello');
    await vi.advanceTimersByTimeAsync(LIVE_INTERVAL_MS);
    await writer.end();
    expect(puts).toEqual(['{"after":1,"iteration":0,"text":"Hello","thinking":""}', null]);
  });
});
