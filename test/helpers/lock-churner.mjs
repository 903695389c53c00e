// Holds runs of a file store while other flock locks come and go, all in a
// process of its own:
//   node lock-churner.mjs RUNS_DIR CHURN_DIR CHURNING ID...
// opens each run ID (taking its lock, as its writer does), then takes
// CHURNING locks on files in CHURN_DIR through the package's own flock addon
// and releases them, all at once, over and over; prints "churning" once the
// first round is held, and goes on until its stdin ends (or it is killed).
import { openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore } from '../../dist/index.js';

const [runsDir, churnDir, churning, ...ids] = process.argv.slice(2);
const store = new FileStore(runsDir);
for (const id of ids) await store.open(id);
const flock = createRequire(import.meta.url)('node-gyp-build')(fileURLToPath(new URL('../../', import.meta.url)));
const lock = (fd) => {
  const rc = flock.tryLockExclusive(fd);
  if (rc !== 0) throw new Error(`flock failed with errno ${rc}`);
};
const fds = Array.from({ length: Number(churning) }, (_, i) => openSync(join(churnDir, `churning-${i}`), 'w'));
for (const fd of fds) lock(fd);
process.stdout.write('churning\n');
let going = true;
process.stdin.on('end', () => (going = false)).resume();
while (going) {
  for (let round = 0; round < 100; round++) {
    for (const fd of fds) flock.unlock(fd);
    for (const fd of fds) lock(fd);
  }
  await new Promise((ok) => setImmediate(ok)); // to hear stdin end
}
process.exit(0);
