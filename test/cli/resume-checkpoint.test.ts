/**
 * A resume of a long run keeps the run's fold checkpoint beside its journal
 * once its model request is sent (store/checkpoint.ts), of exactly the lines
 * it read; the next load folds from it to what a whole fold gives.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, encodeRecord, fold, parseJournal } from '../../src/index.js';
import { RawJson, parseFoldCheckpoint, type JournalRecord } from '../../src/core/index.js';
import { CHECKPOINT_MIN_BYTES } from '../../src/store/checkpoint.js';
import { runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { assistant, at, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';
import { packageVersion } from '../../src/store/package-version.js';

const BUILD = packageVersion();
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

    // The next load takes it, and folds the lines the resume wrote after it: the whole fold.
    expect((await new FileStore(runs).loadState('long')).state).toEqual(fold(parseJournal(journal)));
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
});
