/**
 * A run another writer holds, met through the real binary: a resume of it names
 * the run, and a new run whose id another creator won says the run exists
 * (never that it is "locked"), whether the two started at once or the winner
 * had only taken the lock.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeRecord } from '../../src/index.js';
import { acquireLock } from '../../src/store/file/flock.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { killLockHolders, startLockHolder } from '../helpers/lock-holders.js';
// Named apart from import.meta: vite's transform fails on an imported binding called `meta` beside it.
import { meta as metaOf } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-held-');
const state = join(dir, 'state');
mkdirSync(join(state, 'runs'), { recursive: true });
writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: An answer.\n  - text: Another.\n');
writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
const cli = (args: string[], input = ''): Promise<CliResult> => runCli([...args, '--state-dir', state], { cwd: dir, input });

afterAll(killLockHolders);
const startHolder = (id: string) => startLockHolder(join(state, 'runs'), id, { appendNothing: true });

describe('a run another writer holds', () => {
  it('is named when a resume or --continue finds it held', async () => {
    expect((await cli(['run', '--chat', '--name', 'talk', 'hi'])).code).toBe(0); // suspended at the end of input
    await startHolder('talk');
    for (const args of [['run', '-c', 'follow'], ['run', '--resume', 'talk', 'follow']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain('logbook: run talk is locked by another writer; wait for it to finish, or stop it first\n');
    }
  });

  it('makes the loser of two runs started at once with one --name say the run exists', async () => {
    for (let round = 0; round < 3; round++) {
      const id = `dup-${round}`;
      const both = await Promise.all([cli(['run', '--name', id, 'hi']), cli(['run', '--name', id, 'hi'])]);
      expect(both.map((r) => r.code).sort(), id).toEqual([0, 1]);
      const loser = both.find((r) => r.code === 1)!;
      expect(loser.stderr, id).toContain(`logbook: run ${id} already exists; pick another id or remove it with \`logbook session rm ${id}\``);
      expect(loser.stderr, id).not.toMatch(/locked/);
    }
  });

  it('says the run exists when the creator that won the id has its lock and links the journal in after', async () => {
    const lock = acquireLock(join(state, 'runs', 'taken.lock'), 'taken'); // this process is the winner, mid-create
    try {
      const loser = cli(['run', '--name', 'taken', 'hi']);
      await new Promise((wake) => setTimeout(wake, 300));
      writeFileSync(join(state, 'runs', 'taken.jsonl'), `${encodeRecord({ seq: 1, meta: metaOf('taken') })}\n`);
      const r = await loser;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('logbook: run taken already exists; pick another id');
    } finally {
      lock.release();
    }
  });

  it('says the run exists when a writer holds it', async () => {
    expect((await cli(['run', '--chat', '--name', 'busy', 'hi'])).code).toBe(0);
    await startHolder('busy');
    const r = await cli(['run', '--name', 'busy', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('logbook: run busy already exists; pick another id');
  });
});
