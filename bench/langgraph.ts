/**
 * Persisting one tool-using conversation of 200 turns, both sides driven by
 * their own agent loop with canned model turns and a canned tool (no model is
 * called): logbook's runner journaling to the file store, and a LangGraph.js
 * StateGraph (MessagesAnnotation state, an agent node and a tools node) with the
 * SQLite checkpointer on a file. Same prose, tool inputs and tool outputs on
 * both sides; rounds alternate. Bytes are what each leaves on disk and what it
 * handed to write(2) (from /proc/self/io).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AIMessage as AIMessageType } from '@langchain/core/messages';
import type { MessagesAnnotation as MessagesAnnotationType } from '@langchain/langgraph';
import { FileStore, ToolRegistry, defineTool, scriptProvider, startRun, type Agent, type ScriptTurn } from 'logbook';
import { TOOL_NAME, turn, toolUseId } from './lib/content.js';
import { tempDir, type BenchOptions } from './lib/env.js';
import { skipped, type Section } from './lib/report.js';
import { bytes, median, ms, now, settle } from './lib/stats.js';

const TURNS = 200;
const PROMPT = 'Read the sources and report.';
const SYSTEM = 'You inspect source code.';
const FINAL = 'I have read every file; the journal handling is consistent.';

/** Bytes this process has handed to write(2) so far, or null off Linux. */
function written(): number | null {
  try {
    const m = /^wchar:\s*(\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

interface Outcome {
  ms: number;
  onDisk: number;
  written: number | null;
}

async function measured(files: () => string[], body: () => Promise<void>): Promise<Outcome> {
  settle();
  const w0 = written();
  const start = now();
  await body();
  const elapsed = now() - start;
  const w1 = written();
  const onDisk = files().reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
  return { ms: elapsed, onDisk, written: w0 !== null && w1 !== null ? w1 - w0 : null };
}

type ScriptTurns = ScriptTurn[];

/** logbook: the runner with the script provider and a function tool, journaled to the file store. */
async function logbookRun(dir: string, round: number): Promise<Outcome> {
  const turns: ScriptTurns = [];
  for (let i = 0; i < TURNS; i++) {
    const t = turn(i);
    turns.push({ text: t.text, tool_calls: [{ name: TOOL_NAME, input: t.input, id: toolUseId(i) }], usage: { input: 1200 + 40 * i, output: 60 } });
  }
  turns.push({ text: FINAL });
  let calls = 0;
  const tools = new ToolRegistry([
    defineTool({ name: TOOL_NAME, description: 'Read a file', input_schema: { type: 'object' }, run: () => turn(calls++).output }),
  ]);
  const provider = scriptProvider(turns, { model: 'bench' });
  const agent: Agent = { provider, tools, system: SYSTEM, maxTokens: 4096, maxIterations: TURNS + 1, thinking: 'off', promptCache: false };
  const id = `conversation-${round}`;
  const store = new FileStore(join(dir, 'runs'));
  return measured(
    () => [join(dir, 'runs', `${id}.jsonl`)],
    async () => {
      const run = await startRun(store, agent, { id, prompt: PROMPT });
      const result = await run.execute();
      if (result.reason !== 'completed' || result.counters.tool_calls !== TURNS) throw new Error(`logbook run ended ${result.reason}: ${result.message ?? ''}`);
    },
  );
}

/** The comparison's libraries, loaded here so that a missing or unbuilt one skips the row rather than the suite. */
async function loadLangGraph() {
  const [messages, langgraph, sqlite] = await Promise.all([
    import('@langchain/core/messages'),
    import('@langchain/langgraph'),
    import('@langchain/langgraph-checkpoint-sqlite'),
  ]);
  // better-sqlite3 loads its native addon on first use: try it now.
  (sqlite.SqliteSaver.fromConnString(':memory:').db as { close(): void }).close();
  return { ...messages, ...langgraph, SqliteSaver: sqlite.SqliteSaver };
}

type LangGraph = Awaited<ReturnType<typeof loadLangGraph>>;
type State = typeof MessagesAnnotationType.State;

/** The same conversation as a LangGraph graph: an agent node with canned turns, a tools node with canned output. */
function graph(lg: LangGraph) {
  const { AIMessage, ToolMessage, StateGraph, MessagesAnnotation, START, END } = lg;
  const agent = (state: State) => {
    const i = state.messages.filter((m) => AIMessage.isInstance(m)).length;
    if (i >= TURNS) return { messages: [new AIMessage(FINAL)] };
    const t = turn(i);
    return { messages: [new AIMessage({ content: t.text, tool_calls: [{ id: toolUseId(i), name: TOOL_NAME, args: t.input, type: 'tool_call' }] })] };
  };
  const tools = (state: State) => {
    const last = state.messages[state.messages.length - 1] as AIMessageType;
    const call = last.tool_calls![0]!;
    const i = Number(call.id!.split('_')[1]);
    return { messages: [new ToolMessage({ content: turn(i).output, tool_call_id: call.id!, name: TOOL_NAME })] };
  };
  const route = (state: State) => {
    const last = state.messages[state.messages.length - 1] as AIMessageType;
    return (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
  };
  return new StateGraph(MessagesAnnotation).addNode('agent', agent).addNode('tools', tools).addEdge(START, 'agent').addConditionalEdges('agent', route, ['tools', END]).addEdge('tools', 'agent');
}

type Sync = 'default' | 'full' | 'none';

/** LangGraph: one invoke of the whole conversation, checkpointed by SqliteSaver on a file (or not at all). */
async function langGraphRun(lg: LangGraph, dir: string, round: number, sync: Sync): Promise<Outcome & { pragma: string }> {
  const path = join(dir, `checkpoints-${sync}-${round}.sqlite`);
  const saver = sync === 'none' ? null : lg.SqliteSaver.fromConnString(path);
  // better-sqlite3 ships no types; the two calls made here are spelled out.
  const db = saver === null ? null : (saver.db as { pragma(sql: string, o?: { simple: boolean }): unknown; close(): void });
  if (db !== null && sync === 'full') db.pragma('synchronous = FULL');
  const app = saver === null ? graph(lg).compile() : graph(lg).compile({ checkpointer: saver });
  try {
    const out = await measured(
      () => (db === null ? [] : [path, `${path}-wal`, `${path}-shm`]),
      async () => {
        const final = await app.invoke({ messages: [new lg.HumanMessage(PROMPT)] }, { configurable: { thread_id: `t${round}` }, recursionLimit: 2 * TURNS + 10 });
        if (final.messages.length !== 2 * TURNS + 2) throw new Error(`LangGraph ended with ${final.messages.length} messages`);
      },
    );
    const pragma = db === null ? '' : `journal_mode=${String(db.pragma('journal_mode', { simple: true }))}, synchronous=${String(db.pragma('synchronous', { simple: true }))}`;
    return { ...out, pragma };
  } finally {
    db?.close();
  }
}

export async function benchLangGraph(opts: BenchOptions): Promise<Section> {
  let lg: LangGraph;
  try {
    lg = await loadLangGraph();
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0];
    return skipped(`persisting a ${TURNS}-turn tool-using conversation`, 'bytes and time per turn, both sides', `LangGraph.js or its SQLite checkpointer cannot load here (${reason}); \`npm install\` builds better-sqlite3 for this Node`);
  }
  const rounds = opts.quick ? 2 : 5;
  const dir = tempDir('langgraph');
  const ours: Outcome[] = [];
  const theirs: (Outcome & { pragma: string })[] = [];
  const full: Outcome[] = [];
  const bare: Outcome[] = [];
  for (let r = 0; r < rounds; r++) {
    const steps: (() => Promise<void>)[] = [
      async () => void ours.push(await logbookRun(dir, r)),
      async () => void theirs.push(await langGraphRun(lg, dir, r, 'default')),
      async () => void full.push(await langGraphRun(lg, dir, r, 'full')),
      async () => void bare.push(await langGraphRun(lg, dir, r, 'none')),
    ];
    if (r % 2 === 1) steps.reverse();
    for (const step of steps) await step();
  }
  const perTurn = (xs: Outcome[]): number => median(xs.map((o) => o.ms)) / TURNS;
  const disk = (xs: Outcome[]): number => median(xs.map((o) => o.onDisk));
  const wrote = (xs: Outcome[]): string => {
    const w = xs.map((o) => o.written).filter((x): x is number => x !== null);
    return w.length > 0 ? `, ${bytes(median(w))} written` : '';
  };
  const side = (xs: Outcome[]): string => `${ms(perTurn(xs))}/turn; ${bytes(disk(xs))} on disk${wrote(xs)}`;
  const timeRatio = perTurn(theirs) / perTurn(ours);
  const diskRatio = disk(theirs) / disk(ours);
  return {
    rows: [
      {
        what: `persisting a ${TURNS}-turn tool-using conversation`,
        measured: side(ours),
        baseline: `LangGraph.js + SqliteSaver: ${side(theirs)}`,
        figure: `LangGraph takes ${timeRatio.toFixed(1)}× the time and ${diskRatio.toFixed(1)}× the disk`,
        target: 'bytes and time per turn, both sides',
        verdict: '—',
        growth: '—',
      },
    ],
    notes: [
      `Conversation: ${TURNS} turns (prose, one \`${TOOL_NAME}\` call, ~${bytes(turn(0).output.length)} of tool output) and a final answer; medians of ${rounds} alternating rounds. logbook: \`startRun\` and \`execute\` with the script provider and a function tool, journaled by the file store, which fsyncs every record (${2 * TURNS + 2} records). LangGraph.js: one \`invoke\` of a StateGraph (MessagesAnnotation; agent and tools nodes returning canned messages) with \`SqliteSaver\` as it configures itself (${theirs[0]?.pragma ?? ''}: WAL commits are not fsynced, so a power loss can lose the last checkpoints). "On disk" is the journal, or the database with its -wal and -shm files, when the run ends; "written" is what the process handed to write(2) meanwhile (logbook's includes the fold checkpoint it keeps beside the journal once the run passes 256 KiB, which "on disk" does not count).`,
      `For reference, same run: LangGraph with \`synchronous=FULL\` (an fsync per commit, as durable as logbook's journal) ${side(full)}; the same graph without a checkpointer ${ms(perTurn(bare))}/turn.`,
    ],
  };
}
