/**
 * The conversation every benchmark stores: deterministic turns of a tool-using
 * agent (a sentence of prose, one `read_file` call, about a kilobyte of output),
 * so each side of a comparison stores the same content and runs are repeatable.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { RawJson, VERSION, defineAgent, defineTool, encodeRecord, fingerprintOf, type Fingerprint, type JournalRecord, type MetaPayload, type Payload } from 'logbook';

export const TOOL_NAME = 'read_file';

export interface Turn {
  text: string;
  input: { path: string; lines: [number, number] };
  output: string;
}

const WORDS = ['module', 'journal', 'record', 'append', 'resume', 'config', 'handler', 'buffer', 'stream', 'index', 'parser', 'result'];

/** A small deterministic generator (mulberry32), so content does not depend on Math.random. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function words(next: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]!);
  return out.join(' ');
}

/** Turn `i` of the conversation: the same for every caller; `outputLines` lines of tool output (about 60 bytes each). */
export function turn(i: number, outputLines = 16): Turn {
  const next = random(i + 1);
  const lines: string[] = [];
  for (let n = 0; n < outputLines; n++) lines.push(`${String(n + 1).padStart(4)}  ${words(next, 8)};`);
  return {
    text: `Turn ${i}: I will read the ${words(next, 2)} source next to check how the ${words(next, 3)} is handled there.`,
    input: { path: `src/${words(next, 1)}/${words(next, 1)}-${i}.ts`, lines: [1, 16] },
    output: lines.join('\n'),
  };
}

export const toolUseId = (i: number, k = 0): string => `toolu_${i}_${k}`;

export function fingerprint(): Fingerprint {
  // The fingerprint of the agent the bench's runs are journaled as written by; it never calls a model.
  const provider = { id: 'script', model: 'bench', complete: () => Promise.reject(new Error('the bench calls no model')) };
  const tool = defineTool({ name: TOOL_NAME, description: 'Read a file', input_schema: { type: 'object' }, run: () => '' });
  return fingerprintOf(defineAgent({ provider, tools: [tool], system: 'You inspect source code.', maxTokens: 4096, maxIterations: 1_000_000 }));
}

export function meta(runId: string, fp: Fingerprint = fingerprint()): MetaPayload {
  return { version: VERSION, run_id: runId, created: '2026-01-02T03:04:05.6Z', fingerprint: fp, prompt: 'Read the sources and report.' };
}

/** Turn `i`'s assistant record, with `calls` tool calls (all of them to read turn i's file). */
export function assistantPayload(i: number, calls = 1): Payload {
  const t = turn(i);
  const uses = Array.from({ length: calls }, (_, k) => ({ tool_use: { id: toolUseId(i, k), name: TOOL_NAME, input: RawJson.fromValue(t.input) } }));
  return {
    assistant: {
      iteration: i,
      message: { role: 'assistant', content: [{ text: { text: t.text } }, ...uses] },
      stop_reason: 'tool_use',
      in_tokens: 1200 + 40 * i,
      out_tokens: 60,
    },
  };
}

export function toolResultPayload(i: number, k = 0, outputLines = 16): Payload {
  return { tool_result: { tool_use_id: toolUseId(i, k), result: { tool_use_id: toolUseId(i, k), content: turn(i, outputLines).output } } };
}

/**
 * The records after meta (seq 2 on) of a run with exactly `count` records in
 * all: whole turns of an assistant record and its tool results, so the run ends
 * on a complete turn and its next step is a model call. When the count is even,
 * the first turn makes two tool calls.
 */
export function* bodyPayloads(count: number, outputLines = 16): Generator<Payload> {
  const body = count - 1;
  const first = body % 2 === 1 ? 2 : 1;
  const turns = Math.floor((body - (first - 1)) / 2);
  for (let i = 0; i < turns; i++) {
    const calls = i === 0 ? first : 1;
    yield assistantPayload(i, calls);
    for (let k = 0; k < calls; k++) yield toolResultPayload(i, k, outputLines);
  }
}

/** The number of turns bodyPayloads(count) holds. */
export function turnsIn(count: number): number {
  const body = count - 1;
  return Math.floor((body - (body % 2)) / 2);
}

/** The journal line (with its newline) of record `seq`. */
export function line(seq: number, payload: Payload): string {
  return `${encodeRecord({ seq, ...payload } as JournalRecord)}\n`;
}

/**
 * Writes a run of `count` records (meta, then whole turns) as the file store
 * would, without fsync: for building inputs quickly, never for measuring appends.
 * Returns the number of records written.
 */
export function writeJournal(path: string, runId: string, count: number, fp?: Fingerprint, outputLines = 16): number {
  const fd = openSync(path, 'w', 0o600);
  try {
    let chunk = line(1, { meta: meta(runId, fp) });
    let seq = 1;
    for (const payload of bodyPayloads(count, outputLines)) {
      chunk += line(++seq, payload);
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
    return seq;
  } finally {
    closeSync(fd);
  }
}
