import { describe, expect, it } from 'vitest';
import { elideMiddle, formatCall, resultLines, showResult } from '../../src/render/index.js';

describe('formatCall', () => {
  it('shows the name and the arguments as carried, strings as their value', () => {
    expect(formatCall('calc', '{"z":1,"a":1.0,"e":1e3,"big":12345678901234567890,"s":"\\u003ctag\\u003e \\u0026"}')).toBe(
      'calc {"z":1,"a":1.0,"e":1e3,"big":12345678901234567890,"s":"<tag> &"}',
    );
    expect(formatCall('noop', '{}')).toBe('noop {}');
  });

  it('is always full without a width, however long', () => {
    const long = 'x'.repeat(500);
    expect(formatCall('write', JSON.stringify({ path: 'a', body: long }))).toContain(long);
  });

  it('elides long string values in the middle to fit a width, keeping keys, numbers and short values', () => {
    const input = JSON.stringify({ path: '/etc/hosts', body: `BEGIN${'x'.repeat(300)}END`, n: 12345 });
    const line = formatCall('write', input, 60);
    expect([...line].length).toBeLessThanOrEqual(60);
    expect(line).toMatch(/^write \{"path":"\/etc\/hosts","body":"BEGIN.*\u2026.*END","n":12345\}$/);
    expect(formatCall('write', input, 1000)).toContain('x'.repeat(300));
  });

  it('elides only as far as it can: a tiny width still shows every key', () => {
    const line = formatCall('write', JSON.stringify({ a: 'y'.repeat(100), b: 'z'.repeat(100) }), 10);
    expect(line).toMatch(/^write \{"a":"y+\u2026y+","b":"z+\u2026z+"\}$/);
  });

  it('sanitizes names and values', () => {
    expect(formatCall('x\u001b[2Jy', JSON.stringify({ s: '\u009b2J\u202eabc' }))).toBe('xy {"s":"abc"}');
  });

  it('elideMiddle keeps head and tail', () => {
    expect(elideMiddle('abcdefghij', 5)).toBe('ab\u2026ij');
    expect(elideMiddle('abc', 5)).toBe('abc');
  });
});

describe('showResult', () => {
  const envelope = (o: Record<string, unknown>) => JSON.stringify(o);

  it('unwraps a command envelope to its output, with the exit code when not 0', () => {
    const ok = showResult(envelope({ command: ['ls'], exit_code: 0, output: 'a\nb\n' }), false);
    expect(ok).toMatchObject({ output: 'a\nb\n', exitCode: 0, command: ['ls'] });
    expect(resultLines(ok)).toEqual(['a', 'b']);
    const failed = showResult(envelope({ command: ['false'], exit_code: 1, output: 'boom' }), true);
    expect(resultLines(failed)).toEqual(['boom', '(exit 1)']);
  });

  it('says (no output) for an empty output and marks timeouts and signals', () => {
    expect(resultLines(showResult(envelope({ command: ['true'], exit_code: 0, output: '' }), false))).toEqual(['(no output)']);
    expect(resultLines(showResult(envelope({ command: ['sleep', '9'], exit_code: null, timed_out: true, output: '' }), true))).toEqual([
      '(timed out) (no output)',
    ]);
    expect(resultLines(showResult(envelope({ command: ['x'], exit_code: null, signal: 'SIGKILL', output: 'part' }), true))).toEqual([
      'part',
      '(killed by SIGKILL)',
    ]);
    expect(resultLines(showResult(envelope({ command: ['nope'], exit_code: null, error: 'spawn nope ENOENT', output: '' }), true))).toEqual([
      '(spawn nope ENOENT) (no output)',
    ]);
  });

  it('shows any other shape as the plain text it is, (error) marked', () => {
    for (const content of ['{"command":1,"exit_code":0,"output":"x"}', '{"command":["ls"],"exit_code":0}', '{"command":"ls","exit_code":0,"output":"x","truncated":"yes"}', '{"command":["ls"],"exit_code":0,"output":"x","extra":1}', '{not json', 'plain']) {
      expect(showResult(content, false).output).toBe(content);
    }
    expect(resultLines(showResult('it broke', true))).toEqual(['it broke', '(error)']);
  });

  it("unwraps a remote command's envelope: the command as one string, truncated said", () => {
    expect(showResult('{"command":"sh -c \'exit 3\'","exit_code":3,"output":"nope\\n"}', true)).toEqual({ output: 'nope\n', isError: true, command: ["sh -c 'exit 3'"], exitCode: 3 });
    expect(resultLines(showResult('{"command":"cat big","exit_code":0,"output":"a","truncated":true}', false))).toEqual(['a', '(output truncated)']);
  });
});
