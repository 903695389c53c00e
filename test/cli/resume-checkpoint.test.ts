/**
 * A resume of a long run keeps the run's fold checkpoint beside its journal
 * once its model request is sent (store/checkpoint.ts), of exactly the lines
 * it read; the next load folds from it to what a whole fold gives.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRecord, fold, parseJournal } from '../../src/index.js';
import { LinesDigest, RawJson, encodeFoldCheckpoint, modelCallOf, parseFoldCheckpoint, type JournalRecord, type ModelCall } from '../../src/core/index.js';
import { CHECKPOINT_MIN_BYTES } from '../../src/store/checkpoint.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { packageVersion } from '../../src/store/package-version.js';
import { BIN, builtIdentity, runCli } from '../helpers/cli.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

/** The build the binary is, as its checkpoints name it. */
const BUILD = builtIdentity();

/** `expression` of the `state` a load of run `id` gives in a process of the build (the package's API, whose modules the binary's are). */
function loadedInBuild(stateDir: string, id: string, expression: string, root = resolve(dirname(BIN), '..'), before = ''): string {
  const api = join(root, 'dist/index.js');
  const script = `import { FileStore } from ${JSON.stringify(api)};
${before}
const { state } = await new FileStore(${JSON.stringify(join(stateDir, 'runs'))}).loadState(${JSON.stringify(id)});
process.stdout.write(${expression});`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
}
const api = useFakeAnthropic();

describe('the fold checkpoint of a resumed run', () => {
  it('is kept by a resume of a long run once its request is sent, of the lines it read, and folded from by the next load', async () => {
    const dir = tempDir();
    // The script answers by the turn's iteration: every turn of the long run has one.
    writeFileSync(join(dir, 'turns.yaml'), `turns:\n${'  - text: Done.\n'.repeat(2000)}`);
    const cfg = join(dir, 'agent.yaml');
    writeFileSync(cfg, 'provider: script\nscript: turns.yaml\nmax_iterations: 100000\n');
    const state = join(dir, 'state');
    const runs = join(state, 'runs');
    // The binary makes a run (and so its fingerprint); a long run with it is written beside, ending on a complete turn.
    expect((await runCli(['run', '--config', cfg, '--state-dir', state, '--name', 'seed', 'hi'], { cwd: dir })).code).toBe(0);
    const metaLine = readFileSync(join(runs, 'seed.jsonl'), 'utf8').split('\n')[0]!.replace('"run_id":"seed"', '"run_id":"long"');
    const records: JournalRecord[] = parseJournal(`${metaLine}\n`);
    for (let i = 0; records.reduce((n, r) => n + encodeRecord(r).length, 0) < CHECKPOINT_MIN_BYTES * 1.2; i++) {
      records.push(at(records.length + 1, assistant(i, [`t${i}`], `turn ${i} ${'x'.repeat(80)}`)));
      records.push(at(records.length + 1, toolResult(`t${i}`, `output ${i} ${'y'.repeat(80)}`)));
    }
    writeFileSync(join(runs, 'long.jsonl'), records.map((r) => `${encodeRecord(r)}\n`).join(''));

    const resume = () => runCli(['run', '--config', cfg, '--state-dir', state, '--resume', 'long'], { cwd: dir });
    expect(existsSync(join(runs, 'long.fold'))).toBe(false);
    const first = await resume();
    expect(first.code, first.stderr).toBe(0);
    const kept = parseFoldCheckpoint(readFileSync(join(runs, 'long.fold'), 'utf8'), BUILD);
    expect(kept).not.toBeNull();
    const journal = readFileSync(join(runs, 'long.jsonl'), 'utf8');
    const covered = journal.split('\n').slice(0, kept!.lines);
    expect(kept!.length).toBe(Buffer.byteLength(`${covered.join('\n')}\n`));
    expect(kept!.state).toEqual(fold(parseJournal(covered.join('\n'))));
    expect(kept!.lines).toBeGreaterThanOrEqual(records.length);

    // A load by the same build takes it, and folds the lines the resume wrote after it: the whole fold.
    expect(JSON.parse(loadedInBuild(state, 'long', 'JSON.stringify(state)'))).toEqual(JSON.parse(JSON.stringify(fold(parseJournal(journal)))));
  });

  /** A run of a few turns with a checkpoint of it written as `build`, its prompt marked: a load that shows the mark took it. */
  function markedRun(build: string): string {
    const records: JournalRecord[] = [at(1, { meta: meta('r') })];
    for (let i = 0; i < 3; i++) records.push(at(records.length + 1, assistant(i, [`t${i}`])), at(records.length + 2, toolResult(`t${i}`)));
    const digest = new LinesDigest();
    for (const r of records) digest.addLine(encodeRecord(r));
    const folded = { ...fold(records), prompt: 'FROM THE CHECKPOINT' };
    const calls = records.map(modelCallOf).filter((c): c is ModelCall => c !== null);
    const state = tempDir();
    const runs = join(state, 'runs');
    mkdirSync(runs);
    writeFileSync(join(runs, 'r.jsonl'), records.map((r) => `${encodeRecord(r)}\n`).join(''));
    writeFileSync(join(runs, 'r.fold'), encodeFoldCheckpoint({ lines: digest.lines, length: digest.length, digest: digest.hex(), metaLine: encodeRecord(records[0]!), state: folded, calls }, build));
    return state;
  }
  it('is taken by a later process of the build that wrote it, which a released package is across its processes', () => {
    expect(loadedInBuild(markedRun(BUILD), 'r', 'state.prompt')).toBe('FROM THE CHECKPOINT');
  });

  // Every development build has the package's version: the version alone does not tell two builds apart.
  it.each([
    ['of the same version, named by it alone', packageVersion()],
    ['of the same version and other code', `${packageVersion()}+${'0'.repeat(16)}`],
  ])('is ignored, the run read and folded whole, when another build wrote it: one %s', (_what, other) => {
    expect(other).not.toBe(BUILD);
    expect(loadedInBuild(markedRun(other), 'r', 'state.prompt')).not.toBe('FROM THE CHECKPOINT');
  });

  it('sends, from it, the very request bytes a resume of the whole run sends (the anthropic provider)', async () => {
    const dir = tempDir();
    const cfg = join(dir, 'agent.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nbase_url: ${api.url}\nmax_iterations: 100000\n`);
    const env = { ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
    const runs = join(dir, 'state', 'runs');
    const done = { message: { content: [{ type: 'text', text: 'Done.' }] } };
    api.reset();
    api.reply(done);
    expect((await runCli(['run', '--config', cfg, '--state-dir', join(dir, 'state'), '--name', 'seed', 'hi'], { cwd: dir, env })).code).toBe(0);
    const metaLine = readFileSync(join(runs, 'seed.jsonl'), 'utf8').split('\n')[0]!.replace('"run_id":"seed"', '"run_id":"long"');
    const records: JournalRecord[] = parseJournal(`${metaLine}\n`);
    // Text the request spells otherwise than the journal (<, &, U+2028, quotes), raw inputs kept as written, and turns
    // the API takes in another shape than the held text: thinking, a provider block, an empty text block.
    const odd = ['a <b> & "c"\u2028', 'plain', ''];
    for (let i = 0; records.reduce((n, r) => n + encodeRecord(r).length, 0) < CHECKPOINT_MIN_BYTES * 1.2; i++) {
      const turn = assistant(i, [`t${i}`], `turn ${i} ${odd[i % 3]} ${'x'.repeat(80)}`);
      if ('assistant' in turn && i % 50 === 7) turn.assistant.message.content.unshift({ thinking: { text: 'hm', signature: 'c2ln' } }, { text: { text: '' } });
      if ('assistant' in turn && i % 50 === 9) turn.assistant.message.content.push({ provider: { kind: 'server_tool_use', raw: RawJson.fromText('{"type":"server_tool_use","id":"s","input":{"q":1.0}}') } });
      records.push(at(records.length + 1, turn));
      records.push(at(records.length + 1, toolResult(`t${i}`, `output ${i} ${odd[(i + 1) % 3]} ${'y'.repeat(80)}`)));
    }
    writeFileSync(join(runs, 'long.jsonl'), records.map((r) => `${encodeRecord(r)}\n`).join(''));
    const start = new Map(readdirSync(runs).map((name) => [name, readFileSync(join(runs, name))]));
    const resumeSending = async (): Promise<string> => {
      api.reset();
      api.reply(done);
      const r = await runCli(['run', '--config', cfg, '--state-dir', join(dir, 'state'), '--resume', 'long'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      expect(api.requests).toHaveLength(1);
      return api.requests[0]!.body;
    };
    const whole = await resumeSending(); // no checkpoint yet: the run read and folded whole; it keeps one
    const checkpoint = readFileSync(join(runs, 'long.fold'));
    // The run as it was, with the checkpoint of its lines beside it.
    for (const name of readdirSync(runs)) if (!start.has(name)) rmSync(join(runs, name));
    for (const [name, bytes] of start) writeFileSync(join(runs, name), bytes);
    writeFileSync(join(runs, 'long.fold'), checkpoint);
    expect(parseFoldCheckpoint(checkpoint, BUILD)?.lines).toBe(records.length);
    const fromCheckpoint = await resumeSending();
    expect(fromCheckpoint).toBe(whole);
    expect(JSON.parse(whole).messages).toHaveLength(1 + 2 * ((records.length - 1) / 2));
  });

  it('is named by the build a process loaded, not by one put in its place while it runs (a checkout rebuilt under a long run)', () => {
    // A copy of the package, so that its dist/build.json can be replaced as a rebuild replaces it.
    const root = resolve(dirname(BIN), '..');
    const copy = tempDir();
    cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true, filter: (path) => !path.endsWith('.map') });
    cpSync(join(root, 'package.json'), join(copy, 'package.json'));
    for (const shared of ['node_modules', 'prebuilds', 'build']) if (existsSync(join(root, shared))) symlinkSync(join(root, shared), join(copy, shared));
    const rebuilt = `${packageVersion()}+${'f'.repeat(16)}`;
    expect(rebuilt).not.toBe(BUILD);
    const replace = `(await import('node:fs')).writeFileSync(${JSON.stringify(join(copy, 'dist', 'build.json'))}, ${JSON.stringify(JSON.stringify({ build: rebuilt }))});`;
    expect(loadedInBuild(markedRun(rebuilt), 'r', 'state.prompt', copy, replace)).not.toBe('FROM THE CHECKPOINT');
    // The same copy, started after the rebuild, is that build.
    expect(loadedInBuild(markedRun(rebuilt), 'r', 'state.prompt', copy)).toBe('FROM THE CHECKPOINT');
  });
});
