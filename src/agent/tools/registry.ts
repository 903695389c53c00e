import type { Ajv, ValidateFunction } from 'ajv';
import { ajvClass, precompiled } from '../../schema/precompiled.js';
import { isLogbookError, LogbookError, nonJsonPart, type RawJson, type ToolDefinition } from '../../core/index.js';
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

/** The meta-schema Ajv checks a schema without `$schema` against. */
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

/**
 * Keys with which a schema its meta-schema accepts can still fail Ajv's compile
 * (a reference that does not resolve, a pattern that is no regular expression,
 * an unknown format, an id taken twice), or asks an option it lacks. A schema
 * naming any of them (anywhere, property names included) is compiled when the
 * tool is registered, so its fault is the config's at start; any other is
 * compiled when the tool is first called, so a run that does not call it never
 * loads Ajv.
 */
const COMPILE_MAY_FAIL = /"(?:\$ref|\$dynamicRef|\$recursiveRef|\$id|id|\$schema|\$data|\$async|pattern|patternProperties|format|discriminator)"/;

/**
 * The tools of a run, by name. Input is checked against each tool's JSON Schema
 * before the tool sees it; a mismatch is a tool error result, not a crash.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: Tool; validate: ValidateFunction | undefined }>();
  private compiler: Ajv | undefined;

  /** Tool schemas are compiled with these; checked against their meta-schema first (checkSchema). */
  static readonly AJV_OPTIONS = { allErrors: true, strict: false } as const;

  private get ajv(): Ajv {
    this.compiler ??= new (ajvClass())({ ...ToolRegistry.AJV_OPTIONS, validateSchema: false });
    return this.compiler;
  }

  /**
   * Refuses a schema its meta-schema refuses, with Ajv's own message. The
   * default meta-schema (draft-07) is checked by the build's compiled validator
   * (precompiled.ts), which spares each start compiling it; a schema naming
   * another is checked by Ajv.
   */
  private checkSchema(schema: unknown): void {
    if (typeof schema !== 'object' || schema === null || '$schema' in schema) {
      this.ajv.validateSchema(schema as object, true);
      return;
    }
    const meta = precompiled('json-schema-draft-07', () => new (ajvClass())(ToolRegistry.AJV_OPTIONS).getSchema(DRAFT_07)!);
    if (!meta(schema)) throw new Error(`schema is invalid: ${this.ajv.errorsText(meta.errors)}`);
  }

  constructor(tools: readonly Tool[] = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool; refused (`config`) for a name already taken or an input_schema that is not a valid JSON Schema. */
  register(tool: Tool): this {
    const name = tool.definition.name;
    if (this.tools.has(name)) throw new LogbookError('config', `a second tool named "${name}"`);
    // The schema is sent to the model as JSON and hashed into the fingerprint as JSON.
    const notJson = nonJsonPart(tool.definition.input_schema);
    if (notJson !== null) {
      throw new LogbookError('config', `tool "${name}": input_schema${notJson.path} is ${notJson.what}, which is not a JSON value`);
    }
    try {
      this.checkSchema(tool.definition.input_schema);
    } catch (err) {
      throw new LogbookError('config', `tool "${name}" has an invalid input_schema: ${(err as Error).message}`);
    }
    const entry = { tool, validate: undefined as ValidateFunction | undefined };
    if (COMPILE_MAY_FAIL.test(JSON.stringify(tool.definition.input_schema))) entry.validate = this.compile(tool);
    this.tools.set(name, entry);
    return this;
  }

  /** The validator of `tool`'s input_schema; refused (`config`) where Ajv cannot compile it. */
  private compile(tool: Tool): ValidateFunction {
    try {
      return this.ajv.compile(tool.definition.input_schema as object);
    } catch (err) {
      throw new LogbookError('config', `tool "${tool.definition.name}" has an invalid input_schema: ${(err as Error).message}`);
    }
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
