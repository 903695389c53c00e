import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, WORKSPACE_DEFAULTS } from '../../src/index.js';
import { WorkspaceTracker } from '../../src/agent/workspace.js';
import { meta } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const objectsOf = (gitDir: string): string =>
  execFileSync('git', ['--git-dir', gitDir, 'count-objects', '-v'], { encoding: 'utf8' });

describe('a workspace over a limit', () => {
  it('is never copied into the store, also when a snapshot of an earlier process kept its index', async () => {
    const root = tempDir('logbook-limit-');
    const ws = join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const store = new FileStore(join(root, 'runs'));
    const settings = { ...WORKSPACE_DEFAULTS, track: true, maxBytes: 1024 * 1024 };
    const run = await store.create('big', meta('big'));
    // An earlier process snapshotted the workspace within its limits.
    expect(await WorkspaceTracker.for(store, settings, ws)!.snapshot('big', 1, 'end')).toBeNull();
    const gitDir = join(store.workspace!.home, 'objects.git');
    const before = objectsOf(gitDir);
    // Between processes, a file far over the byte limit is put in the workspace.
    writeFileSync(join(ws, 'dataset.bin'), Buffer.alloc(8 * 1024 * 1024, 7));
    const warning = await WorkspaceTracker.for(store, settings, ws)!.snapshot('big', 1, 'end');
    expect(warning).toMatch(/not tracked/);
    // The limits' walk refused it before any of it was copied: the store holds what it held.
    expect(objectsOf(gitDir)).toBe(before);
    await run.close();
  });
});
