/** The system git as the workspace's snapshots run it: contents read in one `cat-file --batch`. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { eachBlob } from '../../../src/store/workspace/git.js';

describe('eachBlob after the caller is ready', () => {
  it("hands over every content in order, git's whole output held while the caller was not ready (git may have ended meanwhile)", async () => {
    const gitDir = mkdtempSync(join(tmpdir(), 'logbook-git-'));
    onTestFinished(() => rmSync(gitDir, { recursive: true, force: true }));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_DIR: gitDir, HOME: gitDir };
    execFileSync('git', ['init', '--bare', '-q'], { env });
    const texts = ['one\n', 'two\n', 'three\n'];
    const ids = texts.map((text) => execFileSync('git', ['hash-object', '-w', '--stdin'], { env, input: text, encoding: 'utf8' }).trim());
    // Ready only once git has given all it has and ended (a small output fits in the pipe): what it gave is not lost.
    let ready!: () => void;
    const after = new Promise<void>((resolve) => (ready = resolve));
    const taken: string[] = [];
    const reading = eachBlob({ gitDir }, ids, (id, content) => void taken.push(`${id} ${content.toString('utf8')}`), { after });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(taken).toEqual([]);
    ready();
    await reading;
    expect(taken).toEqual(ids.map((id, i) => `${id} ${texts[i]}`));
  });

  it('stops git and fails with what the caller failed with, when it is never ready', async () => {
    const gitDir = mkdtempSync(join(tmpdir(), 'logbook-git-'));
    onTestFinished(() => rmSync(gitDir, { recursive: true, force: true }));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_DIR: gitDir, HOME: gitDir };
    execFileSync('git', ['init', '--bare', '-q'], { env });
    const id = execFileSync('git', ['hash-object', '-w', '--stdin'], { env, input: 'one\n', encoding: 'utf8' }).trim();
    const taken: string[] = [];
    await expect(eachBlob({ gitDir }, [id], (found) => void taken.push(found), { after: Promise.reject(new Error('the way was not cleared')) })).rejects.toThrow('the way was not cleared');
    expect(taken).toEqual([]);
  });
});
