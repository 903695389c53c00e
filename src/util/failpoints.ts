/**
 * Crash injection for the crash-matrix tests, switched on by an environment
 * variable and inert otherwise. Stores call these at the exact points a real
 * crash would hurt most.
 *
 *   LOGBOOK_FAILPOINT=kill-after-seq:N   SIGKILL right after seq N is durable
 *   LOGBOOK_FAILPOINT=tear-seq:N         write half of seq N's line, then SIGKILL
 *
 * Several may be given, separated by commas.
 */

interface Failpoints {
  killAfterSeq: number | null;
  tearSeq: number | null;
}

let parsed: Failpoints | null = null;

function current(): Failpoints {
  if (parsed !== null) return parsed;
  parsed = { killAfterSeq: null, tearSeq: null };
  const spec = process.env.LOGBOOK_FAILPOINT ?? '';
  for (const item of spec.split(',')) {
    const [name, value] = item.trim().split(':');
    const n = Number(value);
    if (!Number.isSafeInteger(n)) continue;
    if (name === 'kill-after-seq') parsed.killAfterSeq = n;
    if (name === 'tear-seq') parsed.tearSeq = n;
  }
  return parsed;
}

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  // The kernel delivers SIGKILL on the way back from kill(2); this line is a backstop.
  process.exit(137);
}

/** Called once seq is durable: dies here when asked to. */
export function afterDurable(seq: number): void {
  if (current().killAfterSeq === seq) die();
}

/** True when the write of `seq` should be torn (half written, then the process dies). */
export function shouldTear(seq: number): boolean {
  return current().tearSeq === seq;
}

export function tornDeath(): never {
  return die();
}
