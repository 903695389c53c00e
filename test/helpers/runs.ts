/**
 * Small builders for rendering and CLI tests: runs with named tools, command
 * results, follow-ups, and a journal full of terminal escape sequences.
 */
import { join } from 'node:path';
import { FileStore, RawJson, fold, type Block, type JournalRecord, type Payload, type RunState } from '../../src/index.js';
import { meta, storeRun } from './records.js';

export const call = (id: string, name: string, input: unknown): Block => ({ tool_use: { id, name, input: RawJson.fromValue(input) } });
export const text = (t: string): Block => ({ text: { text: t } });
export const thinking = (t: string): Block => ({ thinking: { text: t, signature: 'c2ln' } });

export function turn(iteration: number, content: Block[], tokens: [number, number] = [10, 5]): Payload {
  const calls = content.some((b) => 'tool_use' in b);
  return {
    assistant: { iteration, message: { role: 'assistant', content }, stop_reason: calls ? 'tool_use' : 'end_turn', in_tokens: tokens[0], out_tokens: tokens[1] },
  };
}

export function result(id: string, content: string, isError = false): Payload {
  return { tool_result: { tool_use_id: id, result: { tool_use_id: id, content, ...(isError ? { is_error: true } : {}) } } };
}

/** A command tool's result body. */
export function commandResult(id: string, argv: string[], exitCode: number | null, output: string, extra: Record<string, unknown> = {}): Payload {
  return result(id, JSON.stringify({ command: argv, exit_code: exitCode, ...extra, output }), exitCode !== 0);
}

export const followUp = (t: string): Payload => ({ user: { message: { role: 'user', content: [text(t)] } } });

export function records(runId: string, payloads: Payload[], prompt = 'do the thing'): JournalRecord[] {
  return [{ meta: meta(runId, { prompt }) }, ...payloads].map((p, i) => ({ seq: i + 1, ...p }) as JournalRecord);
}

/** Writes a run into the file store of state dir `state` (D/runs/<id>.jsonl). */
export async function writeRun(state: string, id: string, payloads: Payload[], prompt?: string): Promise<void> {
  await storeRun(new FileStore(join(state, 'runs')), id, payloads, prompt === undefined ? {} : { prompt });
}

export function runOf(payloads: Payload[], prompt = 'do the thing', runId = 'r1'): RunState {
  return fold(records(runId, payloads, prompt));
}

/** Sequences a terminal acts on: clear, home, title, conceal, C1 CSI, DCS, carriage return, backspace, bell, bidi override. */
export const HOSTILE =
  'A\u001b[2J\u001b[Hclear \u001b]0;PWNED\u0007title \u001b[8mhidden\u001b[0m \u009b31mred ' +
  '\u001bP1$qm\u001b\\dcs over\rwrite back\bspace bell\u0007 \u202eesrever\u202c \u2066iso\u2069 Z';

/**
 * Markup a page would act on: a script (after a closing script tag), an image
 * and a link whose handlers run script, a stylesheet request, a style that hides
 * the page, an entity and an unclosed comment. Each would set window.__pwned.
 */
export const HOSTILE_MARKUP =
  '</script><script>window.__pwned="script";alert(1)</script><img src=x onerror="window.__pwned=\'img\'">' +
  '<a href="javascript:window.__pwned=\'link\'">link</a><link rel="stylesheet" href="http://127.0.0.1:9/x.css">' +
  '<style>body{display:none}</style>&amp; ]]> <!-- unclosed';

/** A run whose every text a terminal or a page could see carries `hostile` (HOSTILE by default). */
export function hostileRun(hostile: string = HOSTILE): Payload[] {
  return [
    turn(0, [thinking(`think ${hostile}`), text(`say ${hostile}`), call('t1', `sh${hostile}`, { cmd: hostile })]),
    commandResult('t1', ['sh', hostile], 3, `out ${hostile}`),
    followUp(`user ${hostile}`),
    turn(1, [text('done'), call('t2', 'sh', { cmd: 'x' })]),
    { terminal: { reason: 'error', message: `failed ${hostile}` } },
  ];
}

/** Everything a terminal would act on; none of it may reach one. */
export const UNSAFE_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
