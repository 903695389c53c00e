/**
 * Compaction through the binary, against the local Messages and Chat
 * Completions servers, whose context window is small and which refuse a
 * request past it with the real APIs' error bodies: a long unattended run
 * compacts and completes, every request under the window, with nothing of the
 * compacted runs changed but their one terminal record; a refusal for length
 * compacts and asks once more, and a continuation too long by itself is an
 * error, not a loop.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARY_PROMPT, continuationPrompt, keptText } from '../../src/agent/compaction.js';
import { FileStore, validateRecord, type RunInfo } from '../../src/index.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { useFakeOpenAI } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/cli.js';
import { NOTE_TOOL, anthropicNoteTaker, firstUserText, isSummaryCall, openaiNoteTaker, summaryText } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';
import { CONTEXT_REFUSALS } from '../helpers/context-refusals.js';

const dir = tempDir('logbook-compaction-');
const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();

function config(name: string, body: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `${body}system: You take notes.\nmax_iterations: 200\n${NOTE_TOOL}`);
  return path;
}

const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });
const openaiEnv = () => ({ OPENAI_BASE_URL: openai.url, LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

/** The runs of a store with their origins, oldest first along the chain of continuations from `root`. */
async function chain(store: FileStore, root: string): Promise<RunInfo[]> {
  const runs = await store.list({ origins: true });
  const out = [runs.find((r) => r.runId === root)!];
  for (;;) {
    const next = runs.find((r) => r.forkedFrom?.from === out.at(-1)!.runId);
    if (next === undefined) return out;
    out.push(next);
  }
}

/** The --json stream's record lines, by run: each run's meta line opens its records. */
function streamedByRun(stdout: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of stdout.split('\n').filter(Boolean)) {
    const record = JSON.parse(line);
    if (record.meta !== undefined) out.set(record.meta.run_id, (current = []));
    current.push(line);
  }
  return out;
}

describe('an unattended run that outgrows its context window', () => {
  const stateDir = join(dir, 'long');
  const store = new FileStore(join(stateDir, 'runs'));
  const WINDOW = 5000;

  it('compacts twice and completes: every request under the window, the origins unchanged but for their one terminal record, the answer in the last continuation', async () => {
    const cfg = config('long', `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\ncontext_window: ${WINDOW}\ncompact_at: 0.8\nkeep_turns: 2\n`);
    anthropic.reset();
    anthropic.contextWindow = WINDOW;
    const model = anthropicNoteTaker(30);
    anthropic.handler = model.handler;
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'long', '--json', 'Take 30 notes.'], { cwd: dir, env: anthropicEnv(), timeoutMs: 120_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(model.state.turns).toBe(31);
    expect(model.state.summaries).toBe(2);

    // Every request fitted: none refused, each under the window with room for its answer.
    expect(anthropic.refusedTooLong).toHaveLength(0);
    for (const req of anthropic.requests) expect(req.inputTokens! + Number(req.json.max_tokens)).toBeLessThanOrEqual(WINDOW);

    const runs = await chain(store, 'long');
    expect(runs.map((run) => run.status)).toEqual(['suspended', 'suspended', 'completed']);
    const streamed = streamedByRun(r.stdout);
    expect([...streamed.keys()]).toEqual(runs.map((run) => run.runId));
    for (const [i, run] of runs.entries()) {
      const journal = readFileSync(join(stateDir, 'runs', `${run.runId}.jsonl`), 'utf8').split('\n').filter(Boolean);
      // What the journal holds is what was written as the run went, byte for byte: nothing rewritten.
      expect(journal).toEqual(streamed.get(run.runId));
      for (const line of journal) expect(validateRecord(line), line).toEqual({ valid: true });
      const terminals = journal.map((line) => JSON.parse(line)).filter((rec) => rec.terminal !== undefined);
      if (i < runs.length - 1) {
        expect(terminals).toEqual([{ seq: journal.length, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'suspended', message: `compacted into ${runs[i + 1]!.runId}` } }]);
        expect(runs[i + 1]!.forkedFrom).toEqual({ from: run.runId, at: journal.length - 1, compacted: true });
      }
    }
    const last = await store.load(runs.at(-1)!.runId);
    expect(last.state.terminal).toEqual({ reason: 'completed' });
    expect(r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).at(-2).assistant.message.content).toEqual([{ text: { text: 'Done: 30 notes.' } }]);
    // The iterations go on across the continuations: one-shot max_iterations counts the conversation's calls.
    expect(last.state.next_iteration).toBe(31);
  }, 150_000);

  it('sends the summary prompt after the whole conversation, and the continuation its summary and kept exchanges', async () => {
    const runs = await chain(store, 'long');
    const origin = await store.load(runs[0]!.runId);
    const summaries = anthropic.requests.filter(isSummaryCall);
    expect(summaries).toHaveLength(2);
    // The first summary call sent the origin's whole conversation, then the fixed prompt.
    const sent = summaries[0]!.json.messages;
    expect(sent).toHaveLength(origin.state.messages.length);
    expect(sent.at(-1).content.at(-1)).toEqual({ type: 'text', text: SUMMARY_PROMPT });
    expect(sent[0].content[0]).toEqual({ type: 'text', text: 'Take 30 notes.' });
    // The continuation's first request: the summary, then the last two exchanges word for word.
    const at = runs[1]!.forkedFrom!.at;
    const firstOfContinuation = anthropic.requests[anthropic.requests.indexOf(summaries[0]!) + 1]!;
    const expected = continuationPrompt(origin.state.run_id, at, summaryText(Number(/(\d+) notes taken/.exec(firstUserText(firstOfContinuation.json))![1])), keptText(origin.state.messages, 2));
    expect(firstUserText(firstOfContinuation.json)).toBe(expected);
    expect(firstOfContinuation.json.messages).toHaveLength(1);
    expect(expected).toContain('Assistant called note (call toolu_');
    expect(expected).toContain('Result of note (call toolu_');
  });
});

describe('a request the API refuses as too long', () => {
  it('is compacted and asked once more, on Chat Completions with its real error body', async () => {
    const stateDir = join(dir, 'refused');
    const store = new FileStore(join(stateDir, 'runs'));
    // No context_window and a model the price table does not know: only the refusal sets compaction off.
    const cfg = config('refused', 'provider: openai\nmodel: local-model\nmax_tokens: 200\nkeep_turns: 1\n');
    openai.reset();
    openai.contextWindow = 2500;
    const model = openaiNoteTaker(14);
    openai.handler = model.handler;
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'refused', 'Take 14 notes.'], { cwd: dir, env: openaiEnv(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Done: 14 notes.\n');
    expect(r.stderr).toMatch(/refused the conversation as longer than the context window; compacting run refused and asking again/);
    // The refused request, then the summary (of what fits: the oldest turns left out), then the same step in the continuation.
    const refused = openai.refusedTooLong.filter((req) => !isSummaryCall(req));
    expect(refused).toHaveLength(1);
    expect(model.state.summaries).toBe(1);
    const runs = await chain(store, 'refused');
    expect(runs).toHaveLength(2);
    expect(runs.map((run) => run.status)).toEqual(['suspended', 'completed']);
  }, 90_000);

  it("is compacted on the Messages API too when the server refuses in its own shape (llama.cpp's server: OpenAI's body)", async () => {
    const stateDir = join(dir, 'refused-llama');
    const store = new FileStore(join(stateDir, 'runs'));
    const cfg = config('refused-llama', 'provider: anthropic\nmodel: local-model\nmax_tokens: 200\nkeep_turns: 1\n');
    anthropic.reset();
    anthropic.contextWindow = 2500;
    anthropic.tooLongBody = CONTEXT_REFUSALS.find(([server]) => server.startsWith('llama.cpp'))![1];
    const model = anthropicNoteTaker(14);
    anthropic.handler = model.handler;
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'refused-llama', 'Take 14 notes.'], { cwd: dir, env: anthropicEnv(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Done: 14 notes.\n');
    expect(r.stderr).toMatch(/refused the conversation as longer than the context window; compacting run refused-llama and asking again/);
    const statuses = (await chain(store, 'refused-llama')).map((run) => run.status);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.at(-1)).toBe('completed');
  }, 90_000);

  it('when the kept exchanges make the continuation too long, names the way out that works: fewer kept, a fork of the compacted run resumed', async () => {
    const stateDir = join(dir, 'kept-too-long');
    const store = new FileStore(join(stateDir, 'runs'));
    const cfg = config('kept-too-long', 'provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nkeep_turns: 1000\n');
    anthropic.reset();
    anthropic.contextWindow = 2500;
    // A summary that fits the window with one exchange kept, not with all of them.
    const model = anthropicNoteTaker(9, undefined, 4000);
    anthropic.handler = model.handler;
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), timeoutMs: 60_000 });
    const r = await cli(['run', '--name', 'kept', 'Take 9 notes.']);
    expect(r.code).toBe(1);
    const [, continuation] = await chain(store, 'kept');
    const at = continuation!.forkedFrom!.at;
    expect(r.stderr).toContain(
      `logbook: run ${continuation!.runId} continues a compacted run, and its first turn (the summary and the exchanges kept word for word) is itself longer than the context window; lower keep_turns, then fork run kept at seq ${at}, where it was compacted, and resume the fork: it is compacted again, keeping fewer exchanges (`,
    );
    // Resumed, the continuation says the same, naming the same cut.
    const again = await cli(['run', '--resume', continuation!.runId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`then fork run kept at seq ${at}, where it was compacted, and resume the fork`);
    // Followed, it works.
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('keep_turns: 1000', 'keep_turns: 1'));
    expect((await cli(['session', 'fork', 'kept', '--at', String(at), '--name', 'kept-again'])).code).toBe(0);
    const resumed = await cli(['run', '--resume', 'kept-again']);
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Done: 9 notes.\n');
    expect((await chain(store, 'kept-again')).length).toBeGreaterThan(1);
  }, 120_000);

  it('is an error, not a loop, when the continuation is too long by itself', async () => {
    const stateDir = join(dir, 'too-long');
    const store = new FileStore(join(stateDir, 'runs'));
    // A summary longer than the window it was made for.
    const cfg = config('too-long', 'provider: anthropic\nmodel: claude-test\nmax_tokens: 200\n');
    anthropic.reset();
    anthropic.contextWindow = 2500;
    const model = anthropicNoteTaker(40, undefined, 12_000);
    anthropic.handler = model.handler;
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', 'toolong', 'Take 40 notes.'], { cwd: dir, env: anthropicEnv(), timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: run \S+ continues a compacted run, and its first turn \(the summary and the exchanges kept word for word\) is itself longer than the context window; lower keep_turns, then fork run toolong at seq \d+, where it was compacted, and resume the fork: it is compacted again, keeping fewer exchanges \(anthropic refused the request as longer than the model's context window \(400 invalid_request_error\): prompt is too long: \d+ tokens > 2500 maximum\); the journal is kept: logbook session show \S+$/m);
    expect(model.state.summaries).toBe(1);
    const runs = await chain(store, 'toolong');
    expect(runs).toHaveLength(2);
    expect(runs[1]!.status).toBe('error');
  }, 90_000);
});

describe('a first request longer than the context window by itself', () => {
  it('is an error whose run and show say what works: a shorter prompt in a new run, never the resume that is refused again', async () => {
    const stateDir = join(dir, 'first-too-long');
    const cfg = config('first-too-long', 'provider: openai\nmodel: local-model\nmax_tokens: 200\n');
    openai.reset();
    openai.contextWindow = 100;
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: openaiEnv(), timeoutMs: 60_000 });
    const r = await cli(['run', '--name', 'huge', `Read this: ${'word '.repeat(400)}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: the first request of run huge is longer than the context window by itself \(.*\); a resume would send the same request, longer than the context window, and be refused again, so none is offered; start a new run with a shorter prompt, or use a model with a larger context window; the journal is kept: logbook session show huge$/m);
    const shown = await cli(['session', 'show', 'huge']);
    expect(shown.stdout).not.toMatch(/--resume/);
    expect(shown.stdout).toMatch(/^next +a resume would send the same request, longer than the context window, and be refused again, so none is offered; start a new run with a shorter prompt, or use a model with a larger context window$/m);
  });
});

describe('the whole history at hand', () => {
  const stateDir = join(dir, 'long');
  const cfg = join(dir, 'long.yaml');
  const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });

  it('session show says where a compaction cut and how many tokens it saved, of the compacted run and of its continuation', async () => {
    const store = new FileStore(join(stateDir, 'runs'));
    const [origin, first] = await chain(store, 'long');
    const shown = await cli(['session', 'show', 'long']);
    expect(shown.code).toBe(0);
    const at = first!.forkedFrom!.at;
    expect(shown.stdout).toMatch(new RegExp(`^compacted +at seq ${at}, into run ${first!.runId}; [\\d,]+ tokens before it, [\\d,]+ after: [\\d,]+ saved$`, 'm'));
    expect(shown.stdout).toMatch(new RegExp(`^where +compacted at seq ${at} into run ${first!.runId}, where its conversation goes on; every record of it is kept here$`, 'm'));
    expect(shown.stdout).toMatch(new RegExp(`^next +a resume of it is refused; resume the continuation: logbook run --resume ${first!.runId} `, 'm'));
    const [, before, after, saved] = /([\d,]+) tokens before it, ([\d,]+) after: ([\d,]+) saved/.exec(shown.stdout)!.map((x) => Number(x.replace(/,/g, '')));
    expect(before! - after!).toBe(saved);
    expect(saved).toBeGreaterThan(1000);
    const continuation = await cli(['session', 'show', first!.runId]);
    expect(continuation.stdout).toMatch(new RegExp(`^continues +run ${origin!.runId}, compacted at seq ${at}; [\\d,]+ tokens before it, [\\d,]+ after: [\\d,]+ saved$`, 'm'));
    expect(continuation.stdout).not.toMatch(/^forked from/m);
    const json = JSON.parse((await cli(['session', 'show', 'long', '--json'])).stdout);
    expect(json.compacted_into).toMatchObject({ run_id: first!.runId, seq: at, tokens_before: before, tokens_after: after });
  });

  it('session show --lineage and export --lineage take the continuations with their origins', async () => {
    const store = new FileStore(join(stateDir, 'runs'));
    const runs = await chain(store, 'long');
    const last = runs.at(-1)!.runId;
    const shown = await cli(['session', 'show', last, '--lineage']);
    expect(shown.stdout).toMatch(/^lineage: 3 runs, /m);
    expect(shown.stdout).toMatch(new RegExp(`^  long +suspended, the first run, `, 'm'));
    expect(shown.stdout).toMatch(new RegExp(`^\\* ${last} +completed, continues ${runs[1]!.runId} \\(compacted at seq \\d+\\)`, 'm'));
    const md = await cli(['session', 'export', last, '--lineage']);
    expect(md.code).toBe(0);
    const headings = [...md.stdout.matchAll(/^# Run `([^`]+)`$/gm)].map((m) => m[1]);
    expect(headings).toEqual(runs.map((r) => r.runId));
    expect(md.stdout).toContain('Done: 30 notes.');
    const html = await cli(['session', 'export', last, '--lineage', '--format', 'html']);
    expect(html.stdout.match(/<article class="run">/g)).toHaveLength(3);
    const jsonl = await cli(['session', 'export', last, '--lineage', '--format', 'jsonl']);
    expect(jsonl.code).toBe(2);
  });

  it('session search --lineage finds a note in the compacted runs and the summary in a continuation, naming their conversation', async () => {
    const store = new FileStore(join(stateDir, 'runs'));
    const runs = await chain(store, 'long');
    const r = await cli(['session', 'search', 'notes taken so far', '--lineage', runs.at(-1)!.runId, '--json']);
    expect(r.code).toBe(0);
    const hits = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    // Each continuation's prompt holds its summary; every hit is of the conversation that starts at run long.
    expect(hits.filter((h) => h.role === 'prompt').map((h) => h.run_id).sort()).toEqual([runs[1]!.runId, runs[2]!.runId].sort());
    expect(new Set(hits.map((h) => h.conversation))).toEqual(new Set(['long']));
    const note = await cli(['session', 'search', '"3 xxx', '--lineage', 'long', '--json']);
    expect(note.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).run_id)).toContain('long');
  });
});

describe('logbook session compact', () => {
  it('compacts a stopped run at once, and its continuation goes on from the summary, counting its model calls on', async () => {
    const stateDir = join(dir, 'by-hand');
    const store = new FileStore(join(stateDir, 'runs'));
    const cfg = join(dir, 'by-hand.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 3\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(5);
    anthropic.handler = model.handler;
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    // It stops at max_iterations after three notes, resting after a complete tool batch.
    expect((await cli(['run', '--name', 'hand', 'Take 5 notes.'])).code).toBe(5);
    const r = await cli(['session', 'compact', 'hand']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    const into = r.stdout.trim();
    expect(r.stderr).toBe(`compacted run hand at seq 8 into run ${into}; continue it with: logbook run --resume ${into} --config ${cfg} --state-dir ${stateDir}\n`);
    expect(model.state.summaries).toBe(1);
    const origin = await store.load('hand');
    expect(origin.state.terminal).toEqual({ reason: 'suspended', message: `compacted into ${into}` });
    expect((await store.load(into)).state.prompt).toContain(summaryText(3));
    // The continuation counts on from the three calls made: at max_iterations 3 it stops at once; raised, it goes on.
    expect((await cli(['run', '--resume', into])).code).toBe(5);
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('max_iterations: 3', 'max_iterations: 10'));
    const resumed = await cli(['run', '--resume', into, '--force']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Done: 5 notes.\n');
    expect((await store.load(into)).state.next_iteration).toBe(6);
  });

  it('refuses a completed run, naming the follow-up that goes on from it and is compacted as it nears the window', async () => {
    const stateDir = join(dir, 'completed');
    const cfg = join(dir, 'completed.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(1);
    anthropic.handler = model.handler;
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect((await cli(['run', '--name', 'done', 'Take 1 note.'])).code).toBe(0);
    const r = await cli(['session', 'compact', 'done']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `logbook: run done already completed; a completed run is not compacted: ask a follow-up, which goes on in a new run that is compacted as it nears the context window: logbook run --resume done --config ${cfg} --state-dir ${stateDir} PROMPT\n`,
    );
    expect(model.state.summaries).toBe(0);
  });

  it('refuses a run in the middle of a tool batch, saying why', async () => {
    const stateDir = join(dir, 'mid-batch');
    const cfg = join(dir, 'mid-batch.yaml');
    writeFileSync(
      cfg,
      `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nsystem: You take notes.\ntools:\n  - name: note\n    input_schema: { type: object, properties: { text: { type: string } } }\n    command: [echo, "{{text}}"]\n    confirm: true\n`,
    );
    anthropic.reset();
    anthropic.reply({ message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'note', input: { text: 'a' } }, { type: 'tool_use', id: 'toolu_2', name: 'note', input: { text: 'b' } }] } });
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    // Without a terminal to ask on, the run stops before the first call, awaiting its approval: inside the batch.
    expect((await cli(['run', '--name', 'batch', 'Note a and b.'])).code).toBe(3);
    const r = await cli(['session', 'compact', 'batch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `logbook: run batch is in the middle of a tool batch (0 of 2 calls answered), where it cannot be compacted; finish the batch first: logbook run --resume batch --config ${cfg} --state-dir ${stateDir} (the run goes on from there, and is compacted as it nears the context window)\n`,
    );
    expect(anthropic.requests).toHaveLength(1);
    await expect(new FileStore(join(stateDir, 'runs')).load('batch').then((run) => run.records.length)).resolves.toBe(3);
  });
});

describe('a summary call that does not end its turn with a summary', () => {
  const setup = (name: string) => {
    const stateDir = join(dir, name);
    const cfg = join(dir, `${name}.yaml`);
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 2\nsystem: You take notes.\n${NOTE_TOOL}`);
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    return { store: new FileStore(join(stateDir, 'runs')), cli };
  };
  const preamble = { type: 'text', text: 'Let me take one more note first.' };
  const call = { type: 'tool_use', id: 'toolu_s', name: 'note', input: { text: 'more' } };

  it('is sent with the tools but told to call none, so a model that would call one writes the summary', async () => {
    const { store, cli } = setup('summary-no-tools');
    anthropic.reset();
    const model = anthropicNoteTaker(5);
    // A model that, given tools, answers the summary prompt with a call unless the API forbids one.
    anthropic.handler = (req) => (isSummaryCall(req) && req.json.tool_choice?.type !== 'none' ? { message: { content: [preamble, call] } } : model.handler(req));
    expect((await cli(['run', '--name', 'nt', 'Take 5 notes.'])).code).toBe(5);
    const r = await cli(['session', 'compact', 'nt']);
    expect(r.code).toBe(0);
    const summary = anthropic.requests.find(isSummaryCall)!;
    expect(summary.json.tools.map((t: { name: string }) => t.name)).toEqual(['note']);
    expect(summary.json.tool_choice).toEqual({ type: 'none' });
    expect((await store.load(r.stdout.trim())).state.prompt).toContain(summaryText(2));
  });

  it('is refused, nothing compacted, when the model calls a tool anyway or is cut off at max_tokens', async () => {
    for (const [name, reply, message] of [
      ['summary-tool-call', { content: [preamble, call] }, 'was answered with a tool call instead of a summary'],
      ['summary-cut-off', { content: [{ type: 'text', text: 'Goal: take notes. Two notes ta' }], stop_reason: 'max_tokens' }, 'was cut off at max_tokens (200) before the summary was whole; raise max_tokens'],
    ] as const) {
      const { store, cli } = setup(name);
      anthropic.reset();
      const model = anthropicNoteTaker(5);
      anthropic.handler = (req) => (isSummaryCall(req) ? { message: { ...reply, content: [...reply.content] } } : model.handler(req));
      expect((await cli(['run', '--name', 'cut', 'Take 5 notes.'])).code).toBe(5);
      const before = await store.load('cut');
      const r = await cli(['session', 'compact', 'cut']);
      expect(r.code, name).toBe(1);
      expect(r.stderr).toContain(`logbook: the summary call of a compaction ${message}`);
      expect(r.stderr).toContain('nothing was compacted');
      // The run is as it was: no terminal record, no continuation.
      const after = await store.load('cut');
      expect(after.records).toEqual(before.records);
      expect((await store.list()).map((run) => run.runId)).toEqual(['cut']);
    }
  });
});

describe('/compact in a chat', () => {
  it('compacts at the prompt, and the next typed turn goes with the summary in the continuation; /status says the context and the spend', async () => {
    const stateDir = join(dir, 'chat');
    const store = new FileStore(join(stateDir, 'runs'));
    const cfg = join(dir, 'chat.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\ncontext_window: 50000\nprices: { claude-test: { input: 1, output: 1 } }\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(2);
    anthropic.handler = (req) => (lastUserTextIs(req, 'And now?') ? { message: { content: [{ type: 'text', text: 'Going on.' }] } } : model.handler(req));
    const r = await runCli(['run', '--chat', '--config', cfg, '--state-dir', stateDir, '--name', 'talk'], {
      cwd: dir,
      env: anthropicEnv(),
      input: 'Take 2 notes.\n/status\n/compact\nAnd now?\n',
    });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^context +[\d,]+ of 50,000 tokens at the last request \(\d+%\)$/m);
    expect(r.stderr).toMatch(/^spent +\$0\.\d{4} \(prices: prices in agent\.yaml\)$/m);
    expect(model.state.summaries).toBe(1);
    const [origin, continuation] = await chain(store, 'talk');
    expect((await store.load('talk')).state.terminal).toEqual({ reason: 'suspended', message: `compacted into ${continuation!.runId}` });
    // No model call between the compaction and the next typed turn: that turn went with the summary, as one user turn.
    const summaryAt = anthropic.requests.findIndex(isSummaryCall);
    const next = anthropic.requests[summaryAt + 1]!;
    expect(next.json.messages).toHaveLength(1);
    expect(next.json.messages[0].content.map((b: { text: string }) => b.text)).toEqual([(await store.load(continuation!.runId)).state.prompt, 'And now?']);
    const kept = await store.load(continuation!.runId);
    expect(kept.records.map((rec) => Object.keys(rec).find((k) => k !== 'seq' && k !== 'protocol'))).toEqual(['meta', 'user', 'assistant', 'terminal']);
    expect(kept.state.terminal).toEqual({ reason: 'suspended' });
    expect(origin!.runId).toBe('talk');
    expect(r.stdout).toContain('Going on.');
  });
});

function lastUserTextIs(req: { json: any }, text: string): boolean {
  const last = req.json.messages.at(-1);
  return last?.role === 'user' && Array.isArray(last.content) && last.content.at(-1)?.text === text;
}
