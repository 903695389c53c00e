/**
 * Where the machine's CPU went while something was timed, from /proc (Linux):
 * the benchmark's own process, the processes it waited for (its children and
 * theirs, counted once reaped), everything else on the machine, and what the
 * hypervisor took (steal). A figure measured while other processes held the
 * CPUs is slower for it; these say how much of the machine they held. Off Linux
 * every figure is null.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { now } from './stats.js';

/** /proc's unit (USER_HZ): 100 a second on every Linux this runs on. */
const TICK_MS = 10;

export interface CpuSample {
  at: number;
  /** Ticks of all CPUs: busy (user, nice, system, irq, softirq), stolen, and in all. */
  busy: number;
  steal: number;
  total: number;
  /** Ticks of this process, and of the children it has waited for. */
  self: number;
  children: number;
}

function procStat(): { busy: number; steal: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
    const busy = user! + nice! + system! + irq! + softirq!;
    return { busy, steal: steal!, total: busy + idle! + iowait! + steal! };
  } catch {
    return null;
  }
}

function selfStat(): { self: number; children: number } | null {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command's closing parenthesis, from the third (state): utime is the 14th field.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ').map(Number);
    return { self: f[11]! + f[12]!, children: f[13]! + f[14]! };
  } catch {
    return null;
  }
}

export function sampleCpu(): CpuSample | null {
  const machine = procStat();
  const own = selfStat();
  return machine === null || own === null ? null : { at: now(), ...machine, ...own };
}

export interface CpuSpent {
  /** Wall time between the samples, and the CPUs' capacity in it (wall × CPUs), in ms. */
  wallMs: number;
  capacityMs: number;
  /** CPU time of this process, of its reaped children, and of every other process on the machine, in ms. */
  selfMs: number;
  childrenMs: number;
  othersMs: number;
  /** Time the hypervisor ran something else while this machine's CPUs had work, in ms. */
  stealMs: number;
}

/** What was spent between two samples (null when either is). */
export function cpuBetween(a: CpuSample | null, b: CpuSample | null): CpuSpent | null {
  if (a === null || b === null) return null;
  const self = (b.self - a.self) * TICK_MS;
  const children = (b.children - a.children) * TICK_MS;
  return {
    wallMs: b.at - a.at,
    capacityMs: (b.total - a.total) * TICK_MS,
    selfMs: self,
    childrenMs: children,
    othersMs: Math.max(0, (b.busy - a.busy) * TICK_MS - self - children),
    stealMs: (b.steal - a.steal) * TICK_MS,
  };
}

/** This process's children still in the process table (running, or exited and not yet waited for). */
function childrenLeft(): number {
  let left = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The parent's pid is the second field after the command's closing parenthesis.
      if (Number(text.slice(text.lastIndexOf(')') + 2).split(' ', 2)[1]) === process.pid) left++;
    } catch {
      // gone since the directory was read
    }
  }
  return left;
}

/**
 * Waits (at most `boundMs`) until every child this process started has been
 * waited for, so that their CPU time is this process's children's by the next
 * sample: a server killed as a benchmark ends is reaped a moment later, and
 * counted till then with everything else on the machine. True once none is left.
 */
export async function childrenReaped(boundMs = 5_000): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  const until = now() + boundMs;
  for (;;) {
    if (childrenLeft() === 0) return true;
    if (now() >= until) return false;
    await sleep(10);
  }
}
