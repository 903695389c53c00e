/**
 * The lock table while another process takes and releases locks over and
 * over. It keeps the kernel's table, which every process on the machine
 * shares, moving for as long as it runs: it runs alone (vitest.config.ts, the
 * "churn" project), so no other test reading the table meets its churn.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/index.js';
import { killLockHolders, startLockChurner } from '../../helpers/lock-holders.js';
import { meta } from '../../helpers/records.js';
import { tempDir } from '../../helpers/tmp.js';

describe('the lock table while locks come and go', () => {
  afterAll(killLockHolders);

  it.runIf(process.platform === 'linux')('never lists a run its writer holds as interrupted while other locks come and go', async () => {
    // 100 open runs, each held by its writer in another process, which also takes 100 other locks and releases
    // them, all at once, over and over: a table of several reads, with lines leaving it between them.
    const store = new FileStore(join(tempDir(), 'runs'));
    const ids = Array.from({ length: 100 }, (_, i) => `live-${i}`);
    for (const id of ids) await (await store.create(id, meta(id))).close();
    const churner = await startLockChurner(store.directory, tempDir(), 100, ids);
    const statuses = new Map<string, number>();
    try {
      for (let listing = 0; listing < 150; listing++) {
        for (const run of await store.list()) statuses.set(run.status, (statuses.get(run.status) ?? 0) + 1);
      }
    } finally {
      churner.stdin!.end();
    }
    // A run whose lock no reading listed, no reading whole, is open (not known), never interrupted.
    expect(statuses.get('interrupted')).toBeUndefined();
    expect([...statuses.keys()].filter((status) => status !== 'open')).toEqual(['running']);
  });
});
