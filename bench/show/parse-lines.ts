/**
 * The baseline of the `session show` benchmark, as a process of its own: read
 * the journal file and keep `JSON.parse` of each of its lines, the least any
 * fold of the run must do. Prints how many lines it parsed. It reads the file
 * whole with readFileSync(path, 'utf8'); with `chunked`, 64 KiB at a time, each
 * chunk decoded alone, as logbook's file store reads.
 *
 *   node parse-lines.js FILE [chunked]
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const [file, mode] = process.argv.slice(2);
const values: unknown[] = [];

function parseLines(text: string): void {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) values.push(JSON.parse(text.slice(start, end)));
    start = end + 1;
  }
}

if (mode === 'chunked') {
  const fd = openSync(file!, 'r');
  let buf = Buffer.allocUnsafe(64 * 1024);
  let pos = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    const last = buf.lastIndexOf(0x0a, n - 1);
    if (last < 0) {
      if (n < buf.length) {
        parseLines(buf.toString('utf8', 0, n));
        break;
      }
      buf = Buffer.allocUnsafe(buf.length * 2); // a line longer than the buffer
      continue;
    }
    parseLines(buf.toString('utf8', 0, last));
    pos += last + 1;
  }
  closeSync(fd);
} else {
  parseLines(readFileSync(file!, 'utf8'));
}
process.stdout.write(`${values.length}\n`);
