// Opens a run in the file store (taking its lock), appends one record (a
// `suspended` terminal; none with --append-nothing), says so, and then waits to
// be killed. Runs the built package, as another process would.
import { FileStore } from '../../dist/index.js';

const [dir, id, flag] = process.argv.slice(2);
const store = new FileStore(dir);
const journal = await store.open(id);
if (flag !== '--append-nothing') await journal.append({ seq: journal.lastSeq + 1, terminal: { reason: 'suspended' } });
process.stdout.write('holding\n');
setInterval(() => {}, 1 << 30);
