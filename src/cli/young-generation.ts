/**
 * A resume reads, checks and folds a whole run before its request: megabytes
 * of objects, most of them short-lived, on a V8 young generation that starts
 * at 1 MB a semi-space and doubles each time a scavenge finds it too small, so
 * the first scavenges come every megabyte, each copying what is still alive.
 * Grown eightfold instead (to V8's own bound, 16 MB on 64-bit), a 10,000-record
 * resume scavenged 6 times before its request where it scavenged 8 on Node
 * 20 (5 where 7 on Node 24), and spent about a third less time in them.
 */
import { setFlagsFromString } from 'node:v8';

/** How much each growth of the young generation multiplies it by (V8's default: 2). The flag exists from Node 20 on. */
const GROWTH_FLAG = '--semi-space-growth-factor=8';

let grown = false;

/**
 * Lets the young generation grow eightfold at a time, from now on: for a
 * command about to read a long run (a resume; a new run, whose young objects
 * are few, scavenged a larger young generation in its tail). A V8 flag
 * changed at run time makes V8 refuse the code cache of Node's own modules
 * compiled after it (fetch-parser.ts), so a command sets it once those it uses
 * are loaded: a run, once fetch is (keepFetchParserBaseline).
 */
export function growYoungGenerationFaster(): void {
  if (grown) return;
  grown = true;
  setFlagsFromString(GROWTH_FLAG);
}
