/**
 * A2A 1.0 over HTTP from the client side, with the official SDK's client: a
 * client for a server's base URL (its card read from
 * /.well-known/agent-card.json), over JSON-RPC or HTTP+JSON, with a bearer
 * token when given; and `logbook serve --http` started as an operator starts it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startServe, type ServeProcess } from './serve.js';
import type { CliOptions } from './cli.js';

export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** A fetch that adds `authorization: Bearer TOKEN`. */
function bearerFetch(token: string | undefined): typeof fetch {
  if (token === undefined) return fetch;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's client for the agent served at `url`. */
export async function a2aClient(url: string, options: { token?: string; binding?: Binding } = {}): Promise<Client> {
  const fetchImpl = bearerFetch(options.token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [options.binding ?? 'JSONRPC'],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(url);
}

let counter = 0;

/** A user message with `text` (or `data`), for a new task or, with `taskId`, for the task named. */
export function userMessage(content: { text?: string; data?: unknown }, ids: { contextId?: string; taskId?: string } = {}): Message {
  const part =
    content.data !== undefined
      ? { content: { $case: 'data' as const, value: content.data }, metadata: undefined, filename: '', mediaType: 'application/json' }
      : { content: { $case: 'text' as const, value: content.text ?? '' }, metadata: undefined, filename: '', mediaType: 'text/plain' };
  return {
    messageId: `m-${process.pid}-${Date.now()}-${++counter}`,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [part],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A send request for `message`; `returnImmediately` for one that does not wait for the task to rest. */
export function sendRequest(message: Message, options: { returnImmediately?: boolean; historyLength?: number } = {}): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: options.returnImmediately ?? false,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {}),
    },
    metadata: {},
  };
}

/** What a stream event is, for comparing streams: its case and, for a status, its state. */
export function eventShape(e: StreamResponse): string {
  const p = e.payload;
  if (p?.$case === 'task') return `task:${p.value.status?.state}`;
  if (p?.$case === 'statusUpdate') return `status:${p.value.status?.state}`;
  if (p?.$case === 'artifactUpdate') return `artifact:${p.value.artifact?.artifactId}`;
  return String(p?.$case);
}

/** A script-provider agent served over HTTP: its config (a file store of its own in `dir`, unless `more` names a session:), with `more` YAML appended. */
export function httpAgentConfig(dir: string, name: string, turns: unknown[], more = ''): string {
  const script = join(dir, `${name}.turns.json`);
  writeFileSync(script, JSON.stringify({ turns }));
  const path = join(dir, `${name}.yaml`);
  const store = /^session:/m.test(more) ? '' : `session: { backend: file, options: { directory: ${JSON.stringify(join(dir, `${name}-runs`))} } }\n`;
  writeFileSync(path, `provider: script\nscript: ${script}\nmax_iterations: 10\n${store}${more}`);
  return path;
}

/** `logbook serve --http ADDR --config CONFIG`, ready once it says where it serves; its base URL. */
export async function startHttpServe(config: string, options: CliOptions & { listen?: string } = {}): Promise<ServeProcess & { url: string }> {
  const s = await startServe(config, { ...options, args: ['--http', options.listen ?? '127.0.0.1:0'], ready: /^serving agent \S+ over A2A at /m });
  const url = /over A2A at (\S+) /.exec(s.stderr())![1]!;
  return { ...s, url };
}
