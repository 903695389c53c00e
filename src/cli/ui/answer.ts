/**
 * An approval or a denial given on the web page: the run is continued in the
 * ui process exactly as `logbook run --resume ID --approve CALL` (or `--deny
 * CALL --reason TEXT`) would continue it, by the same executeRun, with its
 * output kept for the page (which follows the run's records as they come).
 */
import { Writable } from 'node:stream';
import { awaitedCall, LogbookError } from '../../core/index.js';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { reportError } from '../errors.js';
import type { ExitCode } from '../exit-codes.js';
import type { RunFlags } from '../run.js';
import type { StoreFlags } from '../store.js';

export interface Answer {
  /** The call awaiting the approval, as the page shows its id. */
  callId: string;
  action: 'approve' | 'deny';
  /** Why, for a denial: the model reads it. */
  reason?: string;
}

/** A continuation the ui runs or ran: its output as it comes, and how it ended. */
export interface Continuation {
  runId: string;
  action: Answer['action'];
  callId: string;
  /** What `logbook run` would have printed, stdout and stderr together, sanitized. */
  output: string;
  state: 'running' | 'done';
  /** The exit code `logbook run` would have ended with. */
  code?: ExitCode;
}

/** The most of a continuation's output kept for its page. */
const MAX_OUTPUT = 256 * 1024;

export class Continuations {
  private readonly runs = new Map<string, Continuation>();
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly environment: Environment,
    private readonly flags: StoreFlags,
    /** Told when a continuation's output grows or it ends. */
    private readonly changed: (runId: string) => void,
  ) {}

  /** The continuation of run `id` this ui last started, if any. */
  of(id: string): Continuation | undefined {
    return this.runs.get(id);
  }

  /**
   * Continues run `id` with `answer`: refused (`unknown_call`) unless the run
   * awaits an approval of that call, and (`locked`) while this ui continues it already.
   */
  async start(id: string, answer: Answer): Promise<Continuation> {
    if (this.runs.get(id)?.state === 'running') throw new LogbookError('locked', `run ${id} is being continued by this ui already`);
    const { state } = await this.store.loadState(id);
    const call = awaitedCall(state);
    if (call === undefined || sanitizeLine(call.id) !== answer.callId) {
      const waiting = call === undefined ? 'it awaits no approval' : `it awaits an approval of call ${sanitizeLine(call.id)}`;
      throw new LogbookError('unknown_call', `run ${id} has no call ${sanitizeLine(answer.callId)} awaiting an approval: ${waiting}`);
    }
    const flags: RunFlags = {
      resume: id,
      tui: false,
      color: false,
      ...(this.flags.config !== undefined ? { config: this.flags.config } : {}),
      ...(this.flags.stateDir !== undefined ? { stateDir: this.flags.stateDir } : {}),
      ...(answer.action === 'approve' ? { approve: [call.id] } : { deny: [call.id], ...(answer.reason ? { reason: answer.reason } : {}) }),
    };
    const continuation: Continuation = { runId: id, action: answer.action, callId: answer.callId, output: '', state: 'running' };
    this.runs.set(id, continuation);
    const write = (text: string): void => {
      if (continuation.output.length < MAX_OUTPUT) continuation.output += sanitize(text).slice(0, MAX_OUTPUT - continuation.output.length);
      this.changed(id);
    };
    // Streams that are no terminal: the run shows no spinner and asks nothing, as when piped.
    const stream = (): NodeJS.WriteStream =>
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          write(chunk.toString());
          done();
        },
      }) as unknown as NodeJS.WriteStream;
    const io = { stdout: stream(), stderr: stream(), canAsk: () => false };
    const done = (async () => {
      const { executeRun } = await import('../run.js');
      try {
        continuation.code = await executeRun([], flags, this.environment, io);
      } catch (err) {
        continuation.code = reportError(err, { verbose: false, write });
      }
      continuation.state = 'done';
      this.changed(id);
    })();
    this.active.add(done);
    void done.finally(() => this.active.delete(done));
    return continuation;
  }

  /** Resolves once every continuation this ui started has ended (each suspends at a stop signal, as a run does). */
  async settled(): Promise<void> {
    await Promise.all([...this.active]);
  }
}
