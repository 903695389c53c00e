/**
 * `logbook serve --http ADDR` (or `a2a.http.listen` in agent.yaml): the agent
 * over A2A 1.0 on HTTP (JSON-RPC and HTTP+JSON, streaming over SSE), each task
 * a run in the config's store. On start it resumes the tasks of this agent a
 * server left unfinished (killed, or stopped); SIGTERM or Ctrl-C stops taking
 * requests, suspends the tasks running (the next server resumes them) and
 * exits 0. A line per task on stderr. The SDK and express load only here.
 */
import { startA2AServer, parseListen, isLoopback } from '../../a2a/http/server.js';
import { HttpTasks, type HttpTaskEvent } from '../../agent/a2a-http/tasks.js';
import { retryPolicyFromText } from '../../agent/providers/retry.js';
import { agentFromConfig } from '../../config/agent.js';
import type { LogbookConfig } from '../../config/config.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { formatWithOptions } from 'node:util';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { discoveryLabel, startLabel } from '../mcp/start-label.js';
import { createProgress } from '../progress.js';
import { onStopSignals } from '../signals.js';
import { storeFor } from '../store.js';
import { packageVersion } from '../../api/version.js';

/** The identity an agent serves as over HTTP when its config names none. */
const DEFAULT_HTTP_IDENTITY = 'agent';

/** One line per task event, for the operator's log. Text from the wire is sanitized. */
export function httpTaskLine(event: HttpTaskEvent, now = new Date()): string {
  const at = now.toISOString();
  const clip = (s: string): string => sanitizeLine(s.length > 200 ? `${s.slice(0, 200)}...` : s);
  switch (event.kind) {
    case 'started':
      return `${at} task ${clip(event.task)}: ${event.resumed ? 'resuming' : 'run'} ${clip(event.run)}`;
    case 'rejected':
      return `${at} task ${clip(event.task)} rejected: ${clip(event.reason)}`;
    case 'ended':
      return `${at} task ${clip(event.task)} rests ${event.state.replace(/^TASK_STATE_/, '').toLowerCase()}`;
    case 'failed':
      return `${at} task ${clip(event.task)}: ${clip(event.detail)}`;
  }
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Routes what the SDK prints with console while serving through the sanitizer:
 * its messages carry a peer's task ids and method names, so raw they would put
 * a peer's escape sequences on the operator's terminal. One line each (its
 * first: no stack) unless debugging. Returns the undo.
 */
function sanitizeConsole(write: (line: string) => void, debug: boolean): () => void {
  const kept = CONSOLE_METHODS.map((m) => [m, console[m]] as const);
  for (const m of CONSOLE_METHODS) {
    console[m] = (...parts: unknown[]) => {
      const text = formatWithOptions({ colors: false }, ...parts);
      write(debug ? sanitize(text) : sanitizeLine(text.split('\n', 1)[0]!));
    };
  }
  return () => {
    for (const [m, f] of kept) console[m] = f;
  };
}

/** The bearer token, from the variable a2a.http.token_env names; a named variable that is empty refuses. */
function tokenOf(config: LogbookConfig, environment: Environment): string | undefined {
  const name = config.a2a.http?.token_env;
  if (name === undefined) return undefined;
  const token = environment.env[name];
  if (token === undefined || token === '') throw new LogbookError('config', `a2a.http.token_env names ${name}, which is not set: export ${name} with the bearer token clients send`);
  return token;
}

export async function serveHttp(config: LogbookConfig, listenText: string, environment: Environment): Promise<ExitCode> {
  const listen = parseListen(listenText);
  const token = tokenOf(config, environment);
  if (!isLoopback(listen.host) && token === undefined) {
    throw new LogbookError('config', `serving on ${listen.host}, off loopback, needs a bearer token: set a2a: { http: { token_env: NAME } } in ${config.path} and export NAME`);
  }
  const identity = config.a2a.identity ?? DEFAULT_HTTP_IDENTITY;
  const write = (line: string): void => void process.stderr.write(`${line}\n`);
  const progress = createProgress(process.stderr, { tokens: false });
  const stop = onStopSignals((sig, again) => write(again ? `${sig} again: leaving now` : `${sig}: suspending the tasks running (the next server resumes them; send it again to leave at once)`));
  let store: Store | null = null;
  let close = async (): Promise<void> => {};
  const restoreConsole = sanitizeConsole(write, environment.debug);
  try {
    const configured = await agentFromConfig(config, {
      env: environment.env,
      retry: retryPolicyFromText(environment.maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES'),
      ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
      signal: stop.signal,
      onServers: (p) => (p.ready.length === 0 ? progress.start(startLabel(p)) : progress.label(startLabel(p))),
      onAgents: (p) => (p.ready.length === 0 ? progress.start(discoveryLabel(p)) : progress.label(discoveryLabel(p))),
    }).catch((err: unknown) => {
      if (isLogbookError(err, 'interrupted')) return null;
      throw err;
    });
    progress.stop();
    if (configured === null) return EXIT.ok;
    close = configured.close;
    for (const n of configured.notes) write(sanitizeLine(n));
    store = await storeFor(environment, { config });
    const tasks = new HttpTasks({ identity, store, agent: configured.agent, onTask: (e) => write(httpTaskLine(e)) });
    const publicUrl = config.a2a.http?.url;
    const server = await startA2AServer({
      listen,
      ...(publicUrl !== undefined ? { publicUrl } : {}),
      ...(token !== undefined ? { token } : {}),
      card: {
        name: identity,
        description: config.a2a.description ?? `logbook agent ${identity}`,
        version: packageVersion(),
        skills: [{ id: 'task', name: 'task', description: config.a2a.description ?? 'does a task, each a journaled, resumable run', tags: ['logbook'] }],
        bearer: token !== undefined,
      },
      executor: tasks.executor,
      taskStore: tasks.taskStore,
      loadTask: (id) => tasks.load(id),
      loadEvents: (id) => tasks.events(id),
    });
    const names = server.advertised === null ? '; its URLs name the host each client asks by' : server.advertised !== server.url ? `; its URLs name ${server.advertised}` : '';
    write(sanitizeLine(`serving agent ${identity} over A2A at ${server.url} (card: ${server.url}/.well-known/agent-card.json${names}${token !== undefined ? '; bearer token required' : ''}), runs in the ${store.location}`));
    const resumed = await tasks.resumeInterrupted(server.buses);
    if (resumed > 0) write(`resuming ${resumed} task${resumed === 1 ? '' : 's'} a server left unfinished`);
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    await tasks.stop();
    write(`stopped serving agent ${identity}`);
    return EXIT.ok;
  } finally {
    restoreConsole();
    progress.stop();
    await close();
    await store?.close();
    stop.dispose();
  }
}
