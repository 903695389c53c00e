/**
 * One running MCP server: started, its tools listed (every page), its calls made
 * through the SDK's client under the server's timeout and the run's abort
 * signal. A server that cannot start, or stops answering, is a `tool_server`
 * error naming it and saying why (its exit status and the tail of its stderr);
 * what a call itself answers, an error included, is the call's result, cut to
 * its tool's max_output as a command tool's output is. An answer too long to
 * read at all is an error result that says how long it was.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { LogbookError, redactUrlCredentials, shellQuote } from '../../../core/index.js';
import type { ToolOutcome } from '../tool.js';
import { cutOutput } from '../output.js';
import { resultText, size } from './content.js';
import { expandAll, type Env } from '../env-refs.js';
import { toolEnvironment } from '../environment.js';
import type { ToolAnnotations } from './policy.js';
import { MAX_MESSAGE_BYTES, ServerProcess } from './server-process.js';
import type { McpServerSpec } from './spec.js';

/** A tool as the server lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

export interface ConnectOptions {
  /** logbook's environment: `${VAR}` references and the variables a stdio server inherits. */
  env: Env;
  /** Aborts the start: the server is stopped and the start rejects as interrupted. */
  signal?: AbortSignal;
}

/** A server may not page its tool list forever. */
const MAX_PAGES = 1000;

function clientInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return { name: 'logbook', version: pkg.version };
}

/** An error's message with its cause's (fetch puts the reason there), an HTTP status as such; a URL in it without credentials. */
function errorText(err: unknown): string {
  return redactUrlCredentials(rawErrorText(err));
}

function rawErrorText(err: unknown): string {
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) {
    const detail = err.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '');
    return `answered HTTP ${err.code}${detail ? `: ${detail}` : ''}`;
  }
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && !err.message.includes(cause) ? `${err.message}: ${cause}` : err.message;
}

/**
 * What the SDK's schema check found wrong with an answer (a zod error: its
 * message is the whole issue list as JSON), one short line; undefined for any
 * other error.
 */
function schemaProblems(err: unknown): string | undefined {
  const issues = (err as { issues?: unknown } | null)?.issues;
  if (!(err instanceof Error) || !Array.isArray(issues)) return undefined;
  return (issues as { path?: unknown[]; message?: string }[])
    .slice(0, 3)
    .map((i) => `${(i.path ?? []).join('.') || 'the result'}: ${i.message ?? 'invalid'}`)
    .join('; ');
}

/** A server sent a message longer than MAX_MESSAGE_BYTES while a request waited for its answer. */
class OversizedMessage extends Error {
  constructor(readonly bytes: number) {
    super(`it sent a message of ${size(bytes)} (${bytes} bytes), more than the ${size(MAX_MESSAGE_BYTES)} a message from a server may be`);
  }
}

const isTimeout = (err: unknown): boolean => err instanceof McpError && err.code === ErrorCode.RequestTimeout;
const isConnectionClosed = (err: unknown): boolean => err instanceof McpError && err.code === ErrorCode.ConnectionClosed;

export class ServerConnection {
  /** Why the connection ended on its own, once it has. */
  private lostReason: string | undefined;
  private closing = false;
  private listed: ListedTool[] = [];
  /** Fail the requests waiting for an answer now: the server sent a message too long to read. */
  private readonly waiting = new Set<(err: OversizedMessage) => void>();

  private constructor(
    readonly spec: McpServerSpec,
    private readonly client: Client,
    private readonly transport: Transport,
  ) {
    // Only a process ends by itself; an HTTP transport closes when it is told to,
    // and a failed request says what went wrong (see call).
    client.onclose = () => {
      if (!this.closing && transport instanceof ServerProcess) this.lostReason = this.processEnd(transport);
    };
    // Whatever the message was, it is most likely the answer a request waits for, which would never come.
    if (transport instanceof ServerProcess) {
      transport.onoversize = (bytes) => {
        for (const fail of [...this.waiting]) fail(new OversizedMessage(bytes));
      };
    }
  }

  /**
   * `request`, or a rejection with OversizedMessage as soon as the server sends a
   * message too long to read; `cancel` then stops the request, whose answer is lost.
   */
  private async answer<T>(request: Promise<T>, cancel: (err: OversizedMessage) => void): Promise<T> {
    let fail!: (err: OversizedMessage) => void;
    const tooLong = new Promise<never>((_, reject) => {
      fail = (err) => {
        reject(err);
        cancel(err);
      };
    });
    this.waiting.add(fail);
    request.catch(() => {}); // once cancelled, its rejection is nobody's
    try {
      return await Promise.race([request, tooLong]);
    } finally {
      this.waiting.delete(fail);
    }
  }

  /** Starts the server and lists its tools; on any failure nothing is left running. */
  static async connect(spec: McpServerSpec, options: ConnectOptions): Promise<ServerConnection> {
    const where = `MCP server "${spec.name}"`;
    const transport: Transport =
      spec.transport === 'stdio'
        ? new ServerProcess({
            argv: spec.command,
            env: toolEnvironment(options.env, spec.env, `${where}: env`),
            ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
          })
        : new StreamableHTTPClientTransport(new URL(spec.url), {
            requestInit: { headers: expandAll(spec.headers, options.env, `${where}: headers`) },
          });
    const connection = new ServerConnection(spec, new Client(clientInfo(), { capabilities: {} }), transport);
    // One deadline for the whole start, however many pages its tool list takes.
    const start = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      start.abort(new Error('startup_timeout'));
    }, spec.startup_timeout * 1000);
    const onAbort = (): void => start.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (options.signal?.aborted) onAbort();
      await connection.start(start.signal);
    } catch (err) {
      // Why, before stopping it: once stopped, it will have exited either way.
      const why = timedOut
        ? `no answer within ${spec.startup_timeout}s (its startup_timeout in agent.yaml)${connection.stderrNote()}`
        : connection.goneText(err);
      await connection.close();
      if (options.signal?.aborted) throw new LogbookError('interrupted', `${where}: start interrupted`);
      throw new LogbookError('tool_server', `${where} did not start: ${why}`, { cause: err });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
    return connection;
  }

  private async start(signal: AbortSignal): Promise<void> {
    // The start's own signal, so an answer too long to read stops the request it answered.
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) onAbort();
      await this.listTools(stop);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async listTools(stop: AbortController): Promise<void> {
    const options = { signal: stop.signal, timeout: this.spec.startup_timeout * 1000 };
    const cancel = (err: OversizedMessage): void => stop.abort(err);
    stop.signal.throwIfAborted();
    await this.answer(this.client.connect(this.transport, options), cancel);
    if (this.client.getServerCapabilities()?.tools === undefined) return; // it offers no tools
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.answer(this.client.listTools(cursor !== undefined ? { cursor } : undefined, options), cancel);
      for (const t of result.tools) {
        this.listed.push({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
        });
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return;
      if (seen.has(cursor)) throw new Error(`its tool list repeats the page cursor ${JSON.stringify(cursor)}`);
      seen.add(cursor);
    }
    throw new Error(`its tool list goes on past ${MAX_PAGES} pages`);
  }

  /** Its tools, in the order it listed them. */
  get tools(): readonly ListedTool[] {
    return this.listed;
  }

  /** How it is reached, for listings and messages (never the headers, the env or credentials in its URL, which may be secrets). */
  get where(): string {
    return this.spec.transport === 'stdio' ? shellQuote(this.spec.command) : redactUrlCredentials(this.spec.url);
  }

  private get timeoutMs(): number {
    return this.spec.timeout * 1000;
  }

  /** How its process ended, and the last lines of its stderr. */
  private processEnd(process: ServerProcess): string {
    const end = process.end;
    const how = end === undefined ? 'closed its output' : end.signal !== null ? `was killed by ${end.signal}` : `exited with code ${end.code}`;
    const tail = process.stderrTail();
    return `${how}; ${tail ? `its stderr ended with: ${tail}` : 'it wrote nothing to stderr'}`;
  }

  /** `; its stderr ended with: ...` when it wrote any. */
  private stderrNote(): string {
    const tail = this.transport instanceof ServerProcess ? this.transport.stderrTail() : '';
    return tail ? `; its stderr ended with: ${tail}` : '';
  }

  /** Why a request failed: over HTTP, the URL and what went wrong; else the error and its stderr. */
  private requestFailure(err: unknown): string {
    if (this.spec.transport === 'stdio') return `${errorText(err)}${this.stderrNote()}`;
    return err instanceof StreamableHTTPError ? `${this.where} ${errorText(err)}` : `${this.where}: ${errorText(err)}`;
  }

  /** Why it is gone: a process's end, or the request that failed. */
  private goneText(err: unknown): string {
    if (this.lostReason !== undefined) return this.lostReason;
    if (this.transport instanceof ServerProcess && this.transport.started && (isConnectionClosed(err) || this.transport.end !== undefined)) {
      return this.processEnd(this.transport);
    }
    return isConnectionClosed(err) ? `the connection to ${this.where} was closed` : this.requestFailure(err);
  }

  private lost(label: string, err?: unknown): LogbookError {
    return new LogbookError('tool_server', `MCP server "${this.spec.name}" stopped answering during ${label}: ${this.goneText(err)}`, {
      cause: err,
    });
  }

  /**
   * Calls `tool`. Resolves with what the server answered, its text cut to
   * `maxOutput` bytes (an error it reports included, and a timeout or an answer
   * too long to read, after which the server is asked to cancel); rejects as
   * `interrupted` when `signal` aborts, and with `tool_server` when the server
   * is gone, since then whether the call took effect is unknown.
   */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, label: string, maxOutput: number): Promise<ToolOutcome> {
    if (this.lostReason !== undefined) throw this.lost(label);
    // A signal of the call's own: the SDK never removes its listener from the one it is given.
    const call = new AbortController();
    const onAbort = (): void => call.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) onAbort();
      const request = this.client.callTool({ name: tool, arguments: args }, undefined, { signal: call.signal, timeout: this.timeoutMs });
      const result = await this.answer(request, (err) => call.abort(err));
      return { content: cutOutput(resultText(result as Parameters<typeof resultText>[0]), maxOutput), isError: result.isError === true };
    } catch (err) {
      if (signal.aborted) throw new LogbookError('interrupted', `${label} interrupted`, { cause: err });
      if (err instanceof OversizedMessage) {
        return {
          content: `${label}: MCP server "${this.spec.name}" answered, but ${err.message}, so the answer was not read and the call was cancelled; ask for less at a time`,
          isError: true,
        };
      }
      if (this.lostReason !== undefined || isConnectionClosed(err)) throw this.lost(label, err);
      if (isTimeout(err)) {
        return {
          content: `${label}: no answer from MCP server "${this.spec.name}" within ${this.spec.timeout}s (its timeout in agent.yaml); the call was cancelled`,
          isError: true,
        };
      }
      if (err instanceof McpError) return { content: `${label}: MCP server "${this.spec.name}" answered with an error: ${err.message}`, isError: true };
      const malformed = schemaProblems(err);
      if (malformed !== undefined) {
        return { content: `${label}: MCP server "${this.spec.name}" answered with a malformed result: ${malformed}`, isError: true };
      }
      throw this.lost(label, err); // the request itself failed on its way (HTTP)
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Stops the server (a process and whatever it started) or ends the HTTP session. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined) {
      // Ending the session is a courtesy: bounded, and a failure is no one's concern.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.transport.terminateSession().catch(() => {}),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(this.timeoutMs, 5000)))),
      ]);
      clearTimeout(timer);
    }
    await this.client.close().catch(() => {});
    await this.transport.close().catch(() => {});
  }
}
