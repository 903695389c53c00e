import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { liveObserver, spendText } from '../../src/cli/live.js';
import { createProgress, formatElapsed, progressLine } from '../../src/cli/progress.js';
import { terminalFor } from '../../src/cli/terminal.js';

/** A stream that says it is (or is not) a terminal and keeps what is written. */
function stream(isTTY: boolean, columns = 80) {
  const writes: string[] = [];
  return { isTTY, columns, writes, write: (t: string) => void writes.push(t) };
}

describe('progress', () => {
  it('formats a frame: spinner, label, elapsed time, tokens', () => {
    expect(progressLine(0, 3_240, 1234, 'thinking')).toBe('\u280b thinking 3.2s \u00b7 1,234 tokens');
    expect(progressLine(1, 0, 1)).toBe('\u2819 0.0s \u00b7 1 token');
    expect(progressLine(2, 1_500, null, 'starting')).toBe('\u2839 starting 1.5s');
    expect(formatElapsed(65_000)).toBe('1m05s');
  });

  it('on a terminal draws in place, writes lines above the spinner, and clears it on stop', () => {
    let now = 1_000;
    const s = stream(true);
    const p = createProgress(s, { now: () => now, intervalMs: 60_000 });
    expect(p.active).toBe(true);
    p.update(42);
    p.start('thinking');
    expect(s.writes).toEqual(['\r\u001b[K\u280b thinking 0.0s \u00b7 42 tokens']);
    now = 2_500;
    p.update(50);
    p.write('» ls\n');
    // In one write: a terminal never shows the line without its spinner.
    expect(s.writes.slice(1)).toEqual(['\r\u001b[K» ls\n\r\u001b[K\u2819 thinking 1.5s \u00b7 50 tokens']);
    p.stop();
    p.stop();
    expect(s.writes.slice(2)).toEqual(['\r\u001b[K']);
  });

  it('shows what was spent after the tokens, as the live observer words it', () => {
    let now = 0;
    const s = stream(true);
    const p = createProgress(s, { now: () => now, intervalMs: 60_000 });
    const live = liveObserver({ err: terminalFor(s as never, { color: false, env: {} }), progress: p, tools: new ToolRegistry([]), toolOutput: false, verbose: false, tokens: 0, answer: { write: () => {} } as never, showSpend: true });
    const spend = { usd: 0.0123, calls: 2, unpriced: 0, unpricedModels: [], sources: ['prices in agent.yaml'] };
    live.spent!({ run: spend, conversation: { ...spend, usd: 0.5 } });
    p.update(1200);
    p.start('waiting for the model');
    expect(s.writes.at(-1)).toBe('\r\u001b[K\u280b waiting for the model 0.0s \u00b7 1,200 tokens \u00b7 $0.0123 (conversation $0.5000)');
    expect(spendText({ run: spend })).toBe('$0.0123');
    expect(live.spend?.run.usd).toBe(0.0123);
    now = 10;
    p.stop();
  });

  it('never draws wider than the terminal', () => {
    const s = stream(true, 12);
    const p = createProgress(s, { now: () => 0, intervalMs: 60_000 });
    p.start('a long label that does not fit');
    p.stop();
    expect([...s.writes[0]!.replace('\r\u001b[K', '')].length).toBe(11);
  });

  it('draws nothing when not a terminal, and passes written lines through', () => {
    const s = stream(false);
    const p = createProgress(s);
    p.start('thinking');
    p.update(10);
    p.write('» ls\n');
    p.stop();
    expect(p.active).toBe(false);
    expect(s.writes).toEqual(['» ls\n']);
  });
});
