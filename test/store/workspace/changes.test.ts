import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { WORKSPACE_DEFAULTS } from '../../../src/index.js';
import { changedFilesOfPairs } from '../../../src/store/workspace/changes.js';
import { WorkspaceRepo } from '../../../src/store/workspace/repo.js';

describe('changedFilesOfPairs', () => {
  it("fails with git's reason for a tree the repository does not hold, where one diff-tree of the pairs skips it", async () => {
    const root = mkdtempSync(join(tmpdir(), 'logbook-changes-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const ws = join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const repo = new WorkspaceRepo(join(root, 'home'));
    const { tree } = await repo.snapshot(ws, { ...WORKSPACE_DEFAULTS, track: true });
    const missing = '0123456789abcdef0123456789abcdef01234567';
    await expect(changedFilesOfPairs(repo, [[tree, missing]])).rejects.toThrow(/0123456789abcdef0123456789abcdef01234567/);
    await expect(changedFilesOfPairs(repo, [[tree, missing]])).rejects.not.toThrow(/compared no trees/);
  });
});
