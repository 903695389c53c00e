/**
 * Tokens sent per model turn over a run of 200 tool turns, with compaction
 * and without: the same scripted model (one tool call a turn, each result a
 * few hundred tokens) in-process, through startRun and execute on a file
 * store, its provider counting what each request holds (a token per four
 * characters of the request's JSON, as the test servers count). With
 * compaction the summary calls are counted too. What is compared is what a
 * long unattended run pays for its input: without compaction every turn
 * resends the whole conversation, so the tokens per turn grow with it; with
 * it they stay under the window.
 */
import { join } from 'node:path';
import {
  FileStore,
  RawJson,
  SUMMARY_PROMPT,
  ToolRegistry,
  defineTool,
  startRun,
  type Agent,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type Provider,
} from 'logbook';
import { tempDir, type BenchOptions } from './lib/env.js';
import type { Section } from './lib/report.js';
import { count, ratio } from './lib/stats.js';

const WINDOW = 20_000;
const COMPACT_AT = 0.8;
/** Compacted, a turn sends at most this part of what it does without. */
const TARGET_RATIO = 0.5;
const PAD = 'x'.repeat(600);

const lastText = (m: Message | undefined): string => {
  const b = m?.content.at(-1);
  return b !== undefined && 'text' in b ? b.text.text : '';
};

/** The scripted model: a note a turn for `turns` turns, then its answer; a summary when asked; every request's input counted. */
class CountingModel implements Provider {
  readonly id = 'script';
  readonly model = 'bench-model';
  /** The input tokens of each request, in order, and whether it was a summary call. */
  readonly sent: { tokens: number; summary: boolean }[] = [];
  private given = 0;

  constructor(private readonly turns: number) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const tokens = Math.ceil(JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }).length / 4);
    const summary = lastText(request.messages.at(-1)) === SUMMARY_PROMPT;
    this.sent.push({ tokens, summary });
    const usage = { inTokens: tokens, outTokens: 20 };
    if (summary) return { message: { role: 'assistant', content: [{ text: { text: `${this.given} notes taken; go on from note ${this.given + 1}.` } }] }, stopReason: 'end_turn', usage };
    this.given++;
    if (this.given > this.turns) return { message: { role: 'assistant', content: [{ text: { text: 'Done.' } }] }, stopReason: 'end_turn', usage };
    const input = RawJson.fromText(JSON.stringify({ text: `${this.given} ${PAD}` }));
    return { message: { role: 'assistant', content: [{ tool_use: { id: `t${this.given}`, name: 'note', input } }] }, stopReason: 'tool_use', usage };
  }
}

async function runOnce(turns: number, compaction: boolean): Promise<CountingModel> {
  const model = new CountingModel(turns);
  const tools = new ToolRegistry([defineTool({ name: 'note', input_schema: { type: 'object', properties: { text: { type: 'string' } } }, run: (input) => `noted ${(input as { text: string }).text}` })]);
  const agent: Agent = {
    provider: model,
    tools,
    system: 'You take notes.',
    maxTokens: 200,
    maxIterations: turns + 10,
    thinking: 'off',
    promptCache: false,
    contextWindow: WINDOW,
    compaction: { at: compaction ? COMPACT_AT : false, keepTurns: 2 },
  };
  const store = new FileStore(join(tempDir(`compaction-${compaction ? 'on' : 'off'}`), 'runs'));
  const run = await startRun(store, agent, { prompt: `Take ${turns} notes.` });
  const result = await run.execute();
  if (result.reason !== 'completed') throw new Error(`bench run ended ${result.reason}: ${result.message ?? ''}`);
  await store.close();
  return model;
}

export async function benchCompaction(opts: BenchOptions): Promise<Section> {
  const turns = opts.quick ? 60 : 200;
  const off = await runOnce(turns, false);
  const on = await runOnce(turns, true);
  const perTurn = (m: CountingModel): number => m.sent.reduce((n, s) => n + s.tokens, 0) / turns;
  const largest = (m: CountingModel): number => Math.max(...m.sent.map((s) => s.tokens));
  const r = perTurn(on) / perTurn(off);
  const summaries = on.sent.filter((s) => s.summary).length;
  return {
    rows: [
      {
        what: `input tokens sent per turn, ${turns} tool turns (window ${count(WINDOW)}, compact_at ${COMPACT_AT}, summary calls counted)`,
        measured: `${count(Math.round(perTurn(on)))} compacted (largest request ${count(largest(on))})`,
        baseline: `${count(Math.round(perTurn(off)))} not compacted (largest ${count(largest(off))})`,
        figure: ratio(r),
        target: `≤ ${TARGET_RATIO}×, every request under the window`,
        verdict: opts.quick ? '—' : r <= TARGET_RATIO && largest(on) <= WINDOW ? 'met' : 'missed',
        growth: `${summaries} compactions`,
      },
    ],
    notes: [
      `Compaction: a model of ${turns} tool turns of about ${count(Math.round((PAD.length * 2) / 4))} tokens each, in-process; without compaction each turn sends the whole conversation, with it a turn sends the summary, the last two exchanges and what came after (the rows count the summary calls' input too).`,
    ],
  };
}
