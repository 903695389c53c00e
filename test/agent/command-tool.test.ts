import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandTool, checkCommandTemplate, resolveArgv } from '../../src/agent/tools/command-tool.js';
import { shellQuote } from '../../src/core/index.js';
import { RawJson } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const schema = { type: 'object', properties: { text: { type: 'string' }, n: { type: 'number' } } };

function tool(command: string[], extra: Partial<{ timeout: number; max_output: number; allow_leading_dash: boolean }> = {}): CommandTool {
  return new CommandTool({ name: 't', description: '', input_schema: schema, command, timeout: 10, max_output: 10_000, ...extra }, { env: process.env });
}

const ctx = () => ({ signal: new AbortController().signal });

describe('command tools', () => {
  it('pass an input value as one whole argument, with no shell in between', async () => {
    const hostile = 'a b; echo pwned $(id) `x` > /tmp/nope';
    const out = await tool(['printf', '%s|', '{{text}}', '{{n}}']).run({ text: hostile, n: 3 }, ctx());
    expect(out.isError).toBe(false);
    expect(JSON.parse(out.content)).toEqual({ command: ['printf', '%s|', hostile, '3'], exit_code: 0, output: `${hostile}|3|` });
  });

  it('drop the argument of an absent optional parameter, or of a null one', () => {
    expect(resolveArgv(['ls', '-l', '{{ text }}'], RawJson.fromValue({})).argv).toEqual(['ls', '-l']);
    expect(resolveArgv(['ls', '-l', '{{text}}'], RawJson.fromText('{"text":null}')).argv).toEqual(['ls', '-l']);
  });

  it('pass every value but a string as the JSON text the model wrote', () => {
    const input = RawJson.fromText('{"n": 1.0, "big": 12345678901234567890123, "e": 1E+2, "t": true, "o": {"x": 1.50, "2": [0.0]}, "s": "say \\"hi\\" \\u00e9"}');
    expect(resolveArgv(['p', '{{n}}', '{{big}}', '{{e}}', '{{t}}', '{{o}}', '{{s}}'], input).argv).toEqual([
      'p',
      '1.0',
      '12345678901234567890123',
      '1E+2',
      'true',
      '{"x":1.50,"2":[0.0]}',
      'say "hi" \u00e9',
    ]);
  });

  it('refuse a value that begins with "-", saying why, unless the tool allows it', async () => {
    const dir = tempDir();
    const canary = join(dir, 'canary');
    writeFileSync(canary, '');
    const find = (extra = {}) => tool(['find', '{{text}}', '-name', 'nothing'], extra);
    const refused = await find().run({ text: '-delete' }, { signal: new AbortController().signal }, RawJson.fromValue({ text: '-delete' }));
    expect(refused.isError).toBe(true);
    const body = JSON.parse(refused.content);
    expect(body).toMatchObject({ command: ['find', '-delete', '-name', 'nothing'], exit_code: null, output: '' });
    expect(body.error).toMatch(/^not run: text is "-delete"; a value that begins with "-" could be taken for an option/);
    expect(body.error).toMatch(/allow_leading_dash: true/);
    expect(existsSync(canary)).toBe(true);
    // Numbers too: `-5` is an option to head.
    const negative = await tool(['head', '{{n}}']).run({ n: -5 }, ctx());
    expect(JSON.parse(negative.content).error).toMatch(/^not run: n is "-5"/);
    // Allowed, the value is passed as it is.
    const allowed = await tool(['printf', '%s|', '{{text}}'], { allow_leading_dash: true }).run({ text: '-n' }, ctx());
    expect(JSON.parse(allowed.content)).toMatchObject({ exit_code: 0, output: '-n|' });
  });

  it('report a non-zero exit as an error result carrying the output', async () => {
    const out = await tool(['sh', '-c', 'echo to-out; echo to-err >&2; exit 3']).run({}, ctx());
    expect(out.isError).toBe(true);
    const body = JSON.parse(out.content);
    expect(body.exit_code).toBe(3);
    expect(body.output).toContain('to-out');
    expect(body.output).toContain('to-err');
  });

  it('kill a command that runs past its timeout, with everything it started', async () => {
    const dir = tempDir();
    const marker = join(dir, 'survivor');
    const out = await tool(['sh', '-c', `(sleep 1; touch ${marker}) & sleep 30`], { timeout: 0.3 }).run({}, ctx());
    expect(out.isError).toBe(true);
    const body = JSON.parse(out.content);
    expect(body.timed_out).toBe(true);
    expect(body.exit_code).toBeNull();
    await new Promise((r) => setTimeout(r, 1500)); // the background child would have touched it by now
    expect(existsSync(marker)).toBe(false);
  });

  it('cap the output and say how much was cut', async () => {
    const out = await tool(['sh', '-c', 'head -c 5000 /dev/zero | tr "\\0" x'], { max_output: 100 }).run({}, ctx());
    const body = JSON.parse(out.content);
    expect(body.output.startsWith('x'.repeat(100))).toBe(true);
    expect(body.output).toContain('[output truncated: 4900 more bytes]');
  });

  it('cut the output on a character boundary', async () => {
    // "aé€😀" is 1 + 2 + 3 + 4 bytes; every cut inside a character drops all of it.
    const cuts: [number, string, number][] = [
      [1, 'a', 9],
      [2, 'a', 9],
      [3, 'aé', 7],
      [4, 'aé', 7],
      [5, 'aé', 7],
      [6, 'aé€', 4],
      [9, 'aé€', 4],
    ];
    for (const [max, kept, more] of cuts) {
      const out = await tool(['printf', '%s', 'aé€😀x'], { max_output: max }).run({}, ctx());
      expect(JSON.parse(out.content).output, `max_output ${max}`).toBe(`${kept}\n[output truncated: ${more + 1} more bytes]`);
    }
  });

  it('turn a program that cannot start into an error result', async () => {
    const out = await tool(['/nonexistent/program']).run({}, ctx());
    expect(out.isError).toBe(true);
    expect(JSON.parse(out.content).error).toBe('cannot run /nonexistent/program: not found');
  });

  it('stop when the run is suspended, without a result', async () => {
    const ac = new AbortController();
    const running = tool(['sleep', '30']).run({}, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(running).rejects.toMatchObject({ code: 'interrupted' });
  });

  it('refuse templates that could not be passed as whole arguments', () => {
    expect(() => checkCommandTemplate({ name: 'x', command: ['ls', '--dir={{text}}'], input_schema: schema })).toThrow(/whole argument/);
    expect(() => checkCommandTemplate({ name: 'x', command: ['{{text}}'], input_schema: schema })).toThrow(/program/);
    expect(() => checkCommandTemplate({ name: 'x', command: ['ls', '{{nope}}'], input_schema: schema })).toThrow(/does not declare/);
  });

  it('describe the resolved command line as a shell would show it', () => {
    expect(tool(['grep', '-n', '{{text}}', 'file name']).describe({ text: "it's" })).toBe(`grep -n 'it'\\''s' 'file name'`);
    expect(tool(['echo', '{{n}}']).describe({ n: 1 }, RawJson.fromText('{"n":1.0}'))).toBe('echo 1.0');
    expect(shellQuote(['a', ''])).toBe("a ''");
  });
});
