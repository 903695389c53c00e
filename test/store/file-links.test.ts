/**
 * The file backend follows no link planted in its runs directory, each attack
 * reproduced on real files: a note's temporary file (whose name a writer once
 * built from its pid), a note and a check mark that are links, a journal
 * opened, read or listed through a link, and a lock that is one. Whatever the
 * link points to is never written, created or read.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, encodeRecord } from '../../src/index.js';
import { FileBackend, fileBackendFromOptions } from '../../src/store/file/file-backend.js';
import { meta } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

/** A runs directory, and beside it a file outside it that planted links point to. */
function setting(): { runs: string; outside: string } {
  const root = tempDir('logbook-file-links-');
  const runs = join(root, 'runs');
  mkdirSync(runs, { mode: 0o700 });
  const outside = join(root, 'precious');
  writeFileSync(outside, 'precious\n');
  return { runs, outside };
}

const NOTE = 'tools-abc';
const SYMLINK = /is a symbolic link, which the file store does not open/;

async function created(runs: string, id: string): Promise<FileStore> {
  const store = new FileStore(runs);
  const held = await store.create(id, meta(id));
  await held.close();
  return store;
}

describe('notes', () => {
  it('are written through a new temporary file nobody can guess, never through one planted under the name a pid gives', async () => {
    const { runs, outside } = setting();
    const backend = new FileBackend(runs);
    await created(runs, 'n1');
    symlinkSync(outside, join(runs, `n1.${NOTE}.note.${process.pid}.tmp`));
    await backend.putNote('n1', NOTE, '{"kept":true}');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(await backend.getNote('n1', NOTE)).toBe('{"kept":true}');
    expect(readdirSync(runs).filter((n) => n.endsWith('.tmp') && !n.endsWith(`${process.pid}.tmp`))).toEqual([]); // none left behind
  });

  it('that are links are refused when read, and never written through', async () => {
    const { runs, outside } = setting();
    const backend = new FileBackend(runs);
    await created(runs, 'n2');
    symlinkSync(outside, join(runs, `n2.${NOTE}.note`));
    await backend.putNote('n2', NOTE, 'overwritten?');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    await expect(backend.getNote('n2', NOTE)).rejects.toThrow(SYMLINK);
  });
});

describe('journals that are links', () => {
  it('are refused by open, read, a line read and a stream, and the file they point to is neither cut nor appended to', async () => {
    const { runs, outside } = setting();
    writeFileSync(outside, `${encodeRecord({ seq: 1, meta: meta('j1') })}\n{"torn`);
    const before = readFileSync(outside);
    symlinkSync(outside, join(runs, 'j1.jsonl'));
    const backend = new FileBackend(runs);
    await expect(backend.open('j1')).rejects.toThrow(SYMLINK);
    await expect(backend.read('j1')).rejects.toThrow(SYMLINK);
    await expect(backend.readLine('j1', 1)).rejects.toThrow(SYMLINK);
    await expect((async () => { for await (const _ of backend.stream('j1', { follow: false })) void _; })()).rejects.toThrow(SYMLINK);
    expect(readFileSync(outside)).toEqual(before);
  });

  it('are listed as runs that cannot be read, saying why', async () => {
    const { runs, outside } = setting();
    symlinkSync(outside, join(runs, 'j2.jsonl'));
    const [listed] = await new FileBackend(runs).list();
    expect(listed).toMatchObject({ id: 'j2', first: null, problem: expect.stringMatching(SYMLINK) });
  });

  it('are refused when they are not regular files either (a FIFO never blocks the open)', async () => {
    const { runs } = setting();
    execFileSync('mkfifo', [join(runs, 'j3.jsonl')]);
    await expect(new FileBackend(runs).read('j3')).rejects.toThrow(/is not a regular file/);
  });
});

describe('locks and check marks that are links', () => {
  it('a lock: removing the run and creating one of that id refuse, creating nothing where it points', async () => {
    const { runs, outside } = setting();
    await created(runs, 'l1');
    const lock = join(runs, 'l1.lock');
    rmSync(lock);
    const target = `${outside}.made`;
    symlinkSync(target, lock);
    const backend = new FileBackend(runs);
    await expect(backend.delete('l1')).rejects.toThrow(SYMLINK);
    symlinkSync(target, join(runs, 'l2.lock'));
    await expect(backend.create('l2', encodeRecord({ seq: 1, meta: meta('l2') }))).rejects.toThrow(SYMLINK);
    expect(existsSync(target)).toBe(false);
  });

  it('a check mark: marking the run does not write through it', async () => {
    const { runs, outside } = setting();
    const backend = new FileBackend(runs);
    await created(runs, 'm1');
    symlinkSync(outside, join(runs, 'm1.v1.checked'));
    await backend.markChecked('m1', 'v2');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(readdirSync(runs).filter((n) => n.endsWith('.checked'))).toEqual(['m1.v2.checked']);
  });
});

describe('a runs directory others may write to', () => {
  it('is warned of when the store is opened, and one that is the owner\'s alone is not', async () => {
    const { runs } = setting();
    const warnings: string[] = [];
    await fileBackendFromOptions({ directory: runs }, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([]);
    chmodSync(runs, 0o775);
    await fileBackendFromOptions({ directory: runs }, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([expect.stringMatching(/can be written by its group \(mode 0775\).*chmod go-w /)]);
  });
});
