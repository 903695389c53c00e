/**
 * A resume of a long run keeps the run's fold checkpoint beside its journal
 * once its model request is sent (store/checkpoint.ts), of exactly the lines
 * it read; the next load folds from it to what a whole fold gives.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, encodeRecord, fold, parseJournal } from '../../src/index.js';
import { parseFoldCheckpoint, type JournalRecord } from '../../src/core/index.js';
import { CHECKPOINT_MIN_BYTES } from '../../src/store/checkpoint.js';
import { runCli } from '../helpers/cli.js';
import { assistant, at, toolResult } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';
import { packageVersion } from '../../src/store/package-version.js';

const BUILD = packageVersion();

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
});
