// Opens a run in the file store (taking its lock), appends one record, says so,
// and then waits to be killed. Runs the built package, as another process would.
import { FileStore } from '../../dist/index.js';

const [dir, id] = process.argv.slice(2);
const store = new FileStore(dir);
const journal = await store.open(id);
await journal.append({ seq: journal.lastSeq + 1, terminal: { reason: 'suspended' } });
process.stdout.write('holding\n');
setInterval(() => {}, 1 << 30);
