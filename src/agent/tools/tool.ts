/**
 * Tools the model can call. A tool never crashes a run: whatever goes wrong
 * (bad input, a failing command, a timeout) becomes an error result the model
 * sees and the journal records.
 */
import type { AckMessage, ErrorMessage, EventMessage, ResultMessage } from '../../a2a/protocol.js';
import type { RawJson, ToolDefinition } from '../../core/index.js';

/** What a tool call gave: the text the model reads, and whether it is an error. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Set by a tool another agent runs: its result is journaled `"remote": true`. */
  remote?: boolean;
  /** What a command that ran did, for serving it to another agent (a2a's `exec`); absent when it did not run to an exit. */
  exec?: CommandRun;
}

/** A command that ran to an exit: what it was, its exit code, its output (cut when `truncated`). */
export interface CommandRun {
  command: string;
  exitCode: number;
  output: string;
  truncated: boolean;
}

/** What a tool is given besides its input. */
export interface ToolContext {
  /** Aborted when the run is being suspended: stop, and the result is not journaled. */
  signal: AbortSignal;
  /** The call being run, where the loop runs it (a tool that names the call on the wire derives that name from it). */
  call?: ToolCallInfo;
  /** Told what the tool reports while it works (another agent's events, for a call that asks it a task), for the live view. */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Asks the operator, through the run's approval hook, to approve what the
   * running call's work asks now (another agent's task waiting for input),
   * `question` saying what. With no one to answer now it throws
   * AwaitingApproval: the run suspends awaiting the call's approval, and its
   * resume runs the call again, which asks again.
   */
  approve?: (question: string) => Promise<OperatorAnswer>;
}

/** The operator's answer to what a running call asks. */
export type OperatorAnswer = { approve: true } | { approve: false; reason?: string };

/** What a tool throws when what its running call asks has no one to answer it now: the run suspends awaiting the call's approval. */
export class AwaitingApproval extends Error {
  constructor(readonly question: string) {
    super(`awaiting an approval: ${question}`);
  }
}

/** Which call of which run a tool runs for. */
export interface ToolCallInfo {
  runId: string;
  /** The run's meta `created`, as written. */
  runCreated: string;
  callId: string;
  /** The A2A request the run serves, when it is a task: a task the call starts names it as its parent. */
  parentRequest?: string;
}

/** One message of the task another agent does for a call, as it arrives. */
export interface ToolProgress {
  agent: string;
  message: AckMessage | EventMessage | ResultMessage | ErrorMessage;
}

/**
 * What a tool may do, for the approvals and for a resume deciding whether a call
 * cut short by a crash may run again. A tool without one asks nothing and counts
 * as free of side effects (the command tools' behaviour so far).
 */
export interface ToolPolicy {
  /** Ask the operator before every call. */
  confirm: boolean;
  /**
   * A call changes something outside the run in a way a second call would not
   * undo or repeat harmlessly, so an interrupted one is never silently re-run.
   */
  sideEffects: boolean;
}

/**
 * A tool the model can call. `input` is the model's input as a value; `raw` is
 * the same input as the model wrote it, for a tool that must pass values on
 * exactly as spelled (`1.0`, big integers), which a parsed value cannot promise.
 */
export interface Tool {
  readonly definition: ToolDefinition;
  readonly policy?: ToolPolicy;
  /** For a tool another agent runs: that agent's identity and its own name for the tool. */
  readonly remote?: RemoteOrigin;
  /** `input` has already been checked against the definition's input_schema. */
  run(input: unknown, context: ToolContext, raw: RawJson): Promise<ToolOutcome>;
  /** What calling it with `input` would actually do (a resolved command line), for narration. */
  describe?(input: unknown, raw: RawJson): string;
  /** What a call did run, as its journaled result says (a command tool's argv), for narration; undefined when the result does not say. */
  describeRan?(resultContent: string): string | undefined;
}

/** The agent a remote tool belongs to, and the tool's name there. */
export interface RemoteOrigin {
  agent: string;
  tool: string;
  /** A call asks the agent to do a task (remote_agents), rather than calling one of its tools. */
  task?: true;
}

/** A tool implemented by a function, for programs that embed logbook. */
export interface FunctionToolSpec {
  /** What the model calls it: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the model is told it does. */
  description?: string;
  /** The JSON Schema its input must match (default: an object of any properties); input that does not is answered with an error, unrun. */
  input_schema?: Record<string, unknown>;
  /** Ask before every call: see `BeforeToolCall`. */
  confirm?: boolean;
  /** A call changes something outside the run, so one a stop may have cut short is never run again unasked: see `AgentRun.interruptedCall`. */
  sideEffects?: boolean;
  /**
   * Runs one call: `input` is already checked against `input_schema`. A string
   * is the result the model reads; `{ content, isError: true }` an error it
   * reads; a throw becomes such an error too. `context.signal` aborts when the
   * run is suspended: the call's result is then not journaled.
   */
  run(input: unknown, context: ToolContext): Promise<string | ToolOutcome> | string | ToolOutcome;
}

/** A tool from a function: what the model is told of it, its policy, and what a call does. */
export function defineTool(spec: FunctionToolSpec): Tool {
  const policy = spec.confirm === true || spec.sideEffects === true ? { policy: { confirm: spec.confirm === true, sideEffects: spec.sideEffects === true } } : {};
  return {
    definition: {
      name: spec.name,
      description: spec.description ?? '',
      input_schema: spec.input_schema ?? { type: 'object', properties: {} },
    },
    ...policy,
    async run(input, context) {
      const out = await spec.run(input, context);
      return typeof out === 'string' ? { content: out, isError: false } : out;
    },
  };
}
