import type { Ajv, ValidateFunction } from 'ajv';
import { isLogbookError, LogbookError, type RawJson, type ToolDefinition } from '../../core/index.js';
import { checkInputSchema, compileInputSchema, inputSchemaCompiler, INPUT_SCHEMA_AJV_OPTIONS } from './input-schema.js';
import { AwaitingApproval, type Tool, type ToolContext, type ToolOutcome } from './tool.js';

/**
 * Settles with `work`, or rejects as interrupted as soon as `signal` aborts, so a
 * tool that ignores its signal cannot hold a suspend up. Its result, if it comes
 * later, is dropped: the resume runs that call again.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, name: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new LogbookError('interrupted', `${name} interrupted`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new LogbookError('interrupted', `${name} interrupted`));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * The tools of a run, by name. Input is checked against each tool's JSON Schema
 * before the tool sees it; a mismatch is a tool error result, not a crash.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: Tool; validate: ValidateFunction | undefined }>();
  private compiler: Ajv | undefined;

  /** Tool schemas are compiled with these; checked against their meta-schema first (checkInputSchema). */
  static readonly AJV_OPTIONS = INPUT_SCHEMA_AJV_OPTIONS;

  private readonly ajv = (): Ajv => (this.compiler ??= inputSchemaCompiler());

  constructor(tools: readonly Tool[] = []) {
    for (const t of tools) this.register(t);
  }

  /**
   * The registry of a checked config's command tools (toolsFromConfig): their
   * schemas passed checkInputSchema in the config's check (parseConfig), so
   * they are not checked again at each start. @internal
   */
  static ofCheckedConfig(tools: readonly Tool[]): ToolRegistry {
    const registry = new ToolRegistry();
    for (const t of tools) registry.add(t, false);
    return registry;
  }

  /** Adds a tool; refused (`config`) for a name already taken or an input_schema that is not a valid JSON Schema. */
  register(tool: Tool): this {
    return this.add(tool, true);
  }

  /** Adds `tool`, its schema checked (checkInputSchema) when `check`. */
  private add(tool: Tool, check: boolean): this {
    const name = tool.definition.name;
    if (this.tools.has(name)) throw new LogbookError('config', `a second tool named "${name}"`);
    const validate = check ? checkInputSchema(name, tool.definition.input_schema, this.ajv) : undefined;
    this.tools.set(name, { tool, validate });
    return this;
  }

  /** The validator of `tool`'s input_schema; refused (`config`) where Ajv cannot compile it. */
  private compile(tool: Tool): ValidateFunction {
    return compileInputSchema(this.ajv(), tool.definition.name, tool.definition.input_schema);
  }

  /** The tool of that name, if any. */
  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** What the model is told, in registration order; the fingerprint hashes these. */
  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map(({ tool }) => tool.definition);
  }

  /** The resolved invocation for narration, when the tool is known and can say. */
  describe(name: string, input: RawJson): string | undefined {
    const tool = this.get(name);
    if (tool?.describe === undefined) return undefined;
    try {
      return tool.describe(input.value(), input);
    } catch {
      return undefined;
    }
  }

  /** What a call that ran did run, as its journaled result `content` says, when the tool is known and the result says it. */
  describeRan(name: string, content: string): string | undefined {
    try {
      return this.get(name)?.describeRan?.(content);
    } catch {
      return undefined;
    }
  }

  /** Runs one call: its input checked against the tool's schema first; an unknown tool, bad input or a failing tool is an error result, never a throw (but for a suspend or a tool server that stopped answering). */
  async run(name: string, input: RawJson, context: ToolContext): Promise<ToolOutcome> {
    const entry = this.tools.get(name);
    if (entry === undefined) {
      const known = [...this.tools.keys()];
      return { content: `unknown tool "${name}"${known.length ? `; available: ${known.join(', ')}` : ''}`, isError: true };
    }
    const value = input.value();
    const validate = (entry.validate ??= this.compile(entry.tool));
    if (!validate(value)) {
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || 'input'} ${e.message}`).join('; ');
      return { content: `input for ${name} does not match its schema: ${problems}`, isError: true };
    }
    try {
      return await untilAborted(entry.tool.run(value, context, input), context.signal, name);
    } catch (err) {
      // A tool server that stopped answering leaves the call's outcome unknown: that
      // is no result to journal, but the run's failure (a resume tries the call again).
      if (context.signal.aborted || isLogbookError(err, 'tool_server') || err instanceof AwaitingApproval) throw err;
      return { content: `${name} failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }
}
