/**
 * Starting a tool's process: a command tool, or an MCP server run over stdio.
 * On Linux it runs under `tether` (built with the package from
 * native/tether.c), which kills the tool's whole process group when logbook
 * dies by any means, SIGKILL included: a resume can never run a tool while a
 * copy a dead process started still runs, and no server outlives the run that
 * started it. Elsewhere (no tether) the tool runs directly, and that guarantee
 * is the operator's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { nativeExecutable, nativeMissing } from '../../store/native.js';

let tetherPath: string | null | undefined;

/**
 * The tether binary on Linux, built or prebuilt; null elsewhere. On Linux a
 * tool never runs without it (`addon_missing`): it would outlive a logbook
 * killed outright, and a resume could run it a second time beside the first.
 */
export function tether(): string | null {
  if (process.platform !== 'linux') return null;
  tetherPath ??= nativeExecutable('tether');
  if (tetherPath === null) throw nativeMissing('tether, which keeps a tool from outliving logbook,');
  return tetherPath;
}

export interface StartedTool {
  child: ChildProcess;
  /** Resolves with why the program could not be started, or undefined once it has. */
  startError: Promise<string | undefined>;
}

/** Words for an errno from exec or spawn. */
function whyNot(code: string | undefined): string {
  if (code === 'ENOENT') return 'not found';
  if (code === 'EACCES') return 'permission denied';
  return code ?? 'unknown error';
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

export interface StartOptions {
  /** A pipe to its stdin (an MCP server reads its requests there); else it reads nothing. */
  input?: boolean;
  /** Its whole environment (see environment.ts): never logbook's own, which may hold API keys. */
  env: Record<string, string>;
}

/** Starts `argv` in a process group of its own (so a timeout or suspend kills everything it started). */
export function startTool(argv: readonly string[], cwd: string | undefined, options: StartOptions): StartedTool {
  const via = tether();
  const stdin = options.input === true ? 'pipe' : 'ignore';
  const common = { cwd, detached: true, env: options.env };
  const child = via === null
    ? spawn(argv[0]!, argv.slice(1), { ...common, stdio: [stdin, 'pipe', 'pipe'] })
    : spawn(via, [...argv], { ...common, stdio: [stdin, 'pipe', 'pipe', 'pipe'] });
  const startError = new Promise<string | undefined>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => resolve(`cannot run ${argv[0]}: ${whyNot(err.code)}`));
    const report = child.stdio[3];
    if (report === undefined || report === null) {
      child.once('spawn', () => resolve(undefined));
      return;
    }
    let text = '';
    report.on('data', (d: Buffer) => (text += d.toString()));
    report.once('close', () => {
      const m = /^exec:(\d+)$/.exec(text);
      resolve(m === null ? undefined : `cannot run ${argv[0]}: ${whyNot(ERRNO_NAMES.get(Number(m[1])))}`);
    });
  });
  return { child, startError };
}
