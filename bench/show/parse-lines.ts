/**
 * The baseline of the `session show` benchmark, as a process of its own: read
 * the journal file and keep `JSON.parse` of each of its lines, the least any
 * fold of the run must do. Prints how many lines it parsed.
 *
 *   node parse-lines.js FILE
 */
import { readFileSync } from 'node:fs';

const text = readFileSync(process.argv[2]!, 'utf8');
const values: unknown[] = [];
let start = 0;
while (start < text.length) {
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  values.push(JSON.parse(text.slice(start, end)));
  start = end + 1;
}
process.stdout.write(`${values.length}\n`);
