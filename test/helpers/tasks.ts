/**
 * Tasks over NATS for tests, as an operator sets them up: the work-queue and
 * events streams and a journal stream made by hand (logbook never makes one),
 * agents' configs (a script provider playing given turns, command tools, a
 * JetStream store every instance shares), and a task's events read back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamConfig } from '@nats-io/jetstream';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type ConnectionOptions } from '@nats-io/transport-node';
import { journalStream } from './jetstream.js';

/** The streams a test's agents use: the defaults of a2a.tasks_stream and a2a.events_stream, and a journal stream. */
export const STREAMS = { tasks: 'A2A_TASKS', events: 'A2A_EVENTS', runs: 'RUNS' } as const;

/** The three streams, R`replicas`, made through `add` (a cluster's, or a server's). */
export async function addTaskStreams(add: (config: Partial<StreamConfig> & { name: string }) => Promise<void>, replicas = 1): Promise<void> {
  const r = { num_replicas: replicas, storage: 'file' as const };
  await add({ name: STREAMS.tasks, subjects: ['choria.fisk-ai.task.>'], retention: 'workqueue', ...r });
  await add({ name: STREAMS.events, subjects: ['choria.fisk-ai.events.>'], ...r });
  await add({ ...journalStream(STREAMS.runs, 'logbook.runs'), ...r });
}

/** A stream made on the server at `url` through a short-lived admin connection. */
export async function addStreamAt(url: string, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    await (await jetstreamManager(nc)).streams.add(config);
  } finally {
    await nc.close();
  }
}

export interface AgentSpec {
  identity: string;
  /** The nats.url. */
  url: string;
  /** The model turns the script provider plays (see src/agent/providers/script.ts). */
  turns: unknown[];
  /** More of agent.yaml, as YAML text (tools:, remote_agents:, expose:, ...). */
  more?: string;
  /** The journal stream; RUNS by default. */
  runs?: string;
  /** More keys of the a2a: block, as YAML flow text (`tasks_stream: X`). */
  a2a?: string;
}

/** An agent's config in `dir`: a script provider, the JetStream store, the identity, and what `more` adds. */
export function agentConfig(dir: string, name: string, spec: AgentSpec): string {
  const script = join(dir, `${name}.turns.json`);
  writeFileSync(script, JSON.stringify({ turns: spec.turns }));
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `provider: script\nscript: ${script}\nmax_iterations: 10\n` +
      `a2a: { identity: ${spec.identity}${spec.a2a ? `, ${spec.a2a}` : ''} }\nnats: { url: "${spec.url}" }\n` +
      `session: { backend: jetstream, options: { stream: ${spec.runs ?? STREAMS.runs} } }\n` +
      (spec.more ?? ''),
  );
  return path;
}

/** A command tool's YAML: `name` runs `script` with sh (its input's fields as $1...), `side_effects` as given. */
export function shTool(name: string, script: string, options: { args?: string[]; sideEffects?: boolean; description?: string } = {}): string {
  const args = options.args ?? [];
  const props = args.map((a) => `${a}: { type: string }`).join(', ');
  return (
    `  - name: ${name}\n    description: ${JSON.stringify(options.description ?? `the ${name} tool`)}\n` +
    `    input_schema: { type: object, properties: { ${props} }${args.length ? `, required: [${args.join(', ')}]` : ''} }\n` +
    `    command: [sh, -c, ${JSON.stringify(script)}, sh${args.map((a) => `, '{{${a}}}'`).join('')}]\n` +
    `    timeout: 120\n${options.sideEffects ? '    side_effects: true\n' : ''}`
  );
}

/**
 * Every message of task `request` in the events stream, as stored, in stream
 * order (read without consuming anything): on the spec's subject, or with
 * `sender` on that sender's subject (where a logbook caller asks for them).
 */
export async function storedEvents(url: string | ConnectionOptions, request: string, sender?: string): Promise<string[]> {
  const nc = await connect(typeof url === 'string' ? { servers: url } : url);
  try {
    const jsm = await jetstreamManager(nc);
    const out: string[] = [];
    let seq = 0;
    for (;;) {
      const msg = await jsm.streams
        .getMessage(STREAMS.events, { seq: seq + 1, next_by_subj: `choria.fisk-ai.events.${sender !== undefined ? `${sender}.` : ''}${request}` } as unknown as { seq: number })
        .catch(() => null);
      if (msg === null) break;
      out.push(new TextDecoder().decode(msg.data));
      seq = msg.seq;
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** The JSON lines of `text` (stdout of `ask --json`). */
export function jsonLines(text: string): Record<string, any>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Waits (bounded) until `ok` holds. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The request id `logbook ask` said it sent, from its stderr. */
export function sentRequest(stderr: string): string | null {
  return /task (\S+) (?:sent to agent|was sent before)/.exec(stderr)?.[1] ?? null;
}
