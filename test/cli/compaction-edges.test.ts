/**
 * Where a compaction meets the rest of the tool, through the binary against
 * the local Messages server: a copy of a compacted run (and of its
 * continuation) keeps what the compaction left beside them, so it is never
 * compacted twice; a continuation `session compact` made is a suspended run
 * the conversation's row stands for.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli } from '../helpers/cli.js';
import { NOTE_TOOL, anthropicNoteTaker, firstUserText, isSummaryCall, summaryText } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-compaction-edges-');
const anthropic = useFakeAnthropic();

/** Waits until the runs made so far have not changed for over a second: what prune --older-than 1s takes. */
const olderThanASecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

/** A run `name` in its own state dir that stopped at max_iterations after three notes, compacted by `session compact`; the continuation's id. */
async function compacted(name: string, extra = ''): Promise<{ stateDir: string; cfg: string; into: string; model: ReturnType<typeof anthropicNoteTaker> }> {
  const stateDir = join(dir, name);
  const cfg = join(dir, `${name}.yaml`);
  writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 3\nsystem: You take notes.\nprices: { claude-test: { input: 1, output: 1 } }\n${extra}${NOTE_TOOL}`);
  anthropic.reset();
  const model = anthropicNoteTaker(5);
  anthropic.handler = model.handler;
  const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
  expect((await cli(['run', '--name', name, 'Take 5 notes.'])).code).toBe(5);
  const r = await cli(['session', 'compact', name]);
  expect(r.stderr).not.toMatch(/^logbook:/m);
  expect(r.code).toBe(0);
  return { stateDir, cfg, into: r.stdout.trim(), model };
}

describe('session cp of a compacted run', () => {
  it('carries its compaction, origin and times: the copy refuses a resume naming its continuation, pays for no second summary, and shows the same', async () => {
    const { stateDir, cfg, into, model } = await compacted('copied');
    const other = join(dir, 'copied-other');
    for (const id of ['copied', into]) {
      const r = await runCli(['session', 'cp', id, '--from-state-dir', stateDir, '--to-state-dir', other], { cwd: dir });
      expect(r.stderr).not.toMatch(/^logbook:/m);
      expect(r.code).toBe(0);
    }
    const requests = anthropic.requests.length;
    const resumed = await runCli(['run', '--resume', 'copied', '--config', cfg, '--state-dir', other], { cwd: dir, env: anthropicEnv() });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`run copied was compacted into run ${into} at seq 8`);
    expect(anthropic.requests.length).toBe(requests);
    expect(model.state.summaries).toBe(1);
    const show = (id: string, state: string) => runCli(['session', 'show', id, '--config', cfg, '--state-dir', state], { cwd: dir }).then((r) => r.stdout);
    for (const id of ['copied', into]) {
      const [original, copy] = [await show(id, stateDir), await show(id, other)];
      const facts = (text: string) => text.split('\n').filter((l) => /^(continues|compacted|spent|model time|where|status) /.test(l));
      expect(facts(copy)).toEqual(facts(original));
      expect(facts(copy).length).toBeGreaterThanOrEqual(3);
    }
    expect(await show(into, other)).toMatch(/^continues +run copied, compacted at seq 8/m);
    expect(await show('copied', other)).toMatch(/^model time +\S.* in 3 calls(?!, )/m); // each of them timed
    expect(await show(into, other)).toContain(summaryText(3));
  });
});

describe('a continuation session compact made', () => {
  it('is suspended, not interrupted, and the row of its conversation: ls shows it first and prune --status interrupted leaves it', async () => {
    const { stateDir, cfg, into } = await compacted('by-hand');
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    const shown = (await cli(['session', 'show', into])).stdout;
    expect(shown).toMatch(/^status +suspended$/m);
    expect(shown).toMatch(/^where +suspended, before the model's next turn$/m);
    const rows = (await cli(['session', 'ls', '--json'])).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows[0].id).toBe(into);
    // A continuation copies none of its origin's records: ls --json names what it continues, as show --json does, and no fork.
    const continues = JSON.parse((await cli(['session', 'show', into, '--json'])).stdout).continues;
    expect(rows[0].forked_from).toBeUndefined();
    expect(rows[0].continues).toEqual({ run_id: continues.run_id, seq: continues.seq });
    await olderThanASecond();
    const prune = await cli(['session', 'prune', '--older-than', '1s', '--status', 'interrupted', '--dry-run']);
    expect(prune.code).toBe(0);
    expect(prune.stdout + prune.stderr).not.toContain(into);
  });

  it("of a chat at its prompt waits for the next typed turn, as show says, and a resume makes no model call before it", async () => {
    const stateDir = join(dir, 'chat');
    const cfg = join(dir, 'chat.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(1);
    anthropic.handler = model.handler;
    const cli = (args: string[], input?: string) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), ...(input !== undefined ? { input } : {}) });
    expect((await cli(['run', '--chat', '--name', 'talk'], 'Take 1 note.\n')).code).toBe(0);
    const r = await cli(['session', 'compact', 'talk']);
    expect(r.code).toBe(0);
    const into = r.stdout.trim();
    const shown = (await cli(['session', 'show', into])).stdout;
    expect(shown).toMatch(/^where +suspended, waiting for input$/m);
    expect(shown).toMatch(/^next +a resume opens the chat again/m);
    const requests = anthropic.requests.length;
    expect((await cli(['run', '--resume', into], '')).code).toBe(0);
    expect(anthropic.requests.length).toBe(requests);
  });
});

describe('keep_turns: 0', () => {
  it('keeps no exchange, but the typed turn that set the compaction off goes to the continuation word for word', async () => {
    const stateDir = join(dir, 'keep-none');
    const cfg = join(dir, 'keep-none.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\ncontext_window: 1000\ncompact_at: 0.5\nkeep_turns: 0\nsystem: You answer.\n`);
    anthropic.reset();
    let answers = 0;
    anthropic.handler = (req) =>
      isSummaryCall(req)
        ? { message: { content: [{ type: 'text', text: 'Summary: the user asked one question.' }] } }
        : { message: { content: [{ type: 'text', text: `Answer ${++answers}.` }], usage: { input_tokens: answers === 1 ? 600 : 50 } } };
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect((await cli(['run', '--name', 'first', 'The first question.'])).code).toBe(0);
    const r = await cli(['run', '--resume', 'first', 'The second question, typed now.']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(anthropic.requests.filter(isSummaryCall)).toHaveLength(1);
    const last = anthropic.requests.at(-1)!;
    expect(isSummaryCall(last)).toBe(false);
    expect(firstUserText(last.json)).toContain('Summary: the user asked one question.');
    expect(firstUserText(last.json)).toContain('User: The second question, typed now.');
    expect(firstUserText(last.json)).not.toContain('The first question.');
  });
});

describe('a compaction with nothing new since the last', () => {
  it('is refused at no cost: /compact twice in a chat pays for one summary and asks the model nothing unasked; session compact of that continuation says so', async () => {
    const stateDir = join(dir, 'twice');
    const cfg = join(dir, 'twice.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    const model = anthropicNoteTaker(1);
    anthropic.handler = model.handler;
    const cli = (args: string[], input?: string) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), ...(input !== undefined ? { input } : {}) });
    const r = await cli(['run', '--chat', '--name', 'twice'], 'Take 1 note.\n/compact\n/compact\n');
    expect(r.code).toBe(0);
    expect(model.state.summaries).toBe(1);
    expect(isSummaryCall(anthropic.requests.at(-1)!)).toBe(true); // nothing asked of the model after the summary
    expect(r.stderr).toMatch(/nothing to compact: run \S+ holds its first turn alone \(a continuation's: its summary\), with no model turn since; type a turn first/);
    const rows = (await cli(['session', 'ls', '--json', '--forks'])).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2);
    const into = rows.find((row) => row.id !== 'twice')!.id as string;
    const again = await cli(['session', 'compact', into]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`logbook: nothing to compact: run ${into} holds its first turn alone (a continuation's: its summary), with no model turn since\n`);
    expect(model.state.summaries).toBe(1);
  });
});

describe('a chat just compacted', () => {
  it("says the conversation's spend in /status, not the continuation's $0, and its last typed turn in ls, not the summary", async () => {
    const stateDir = join(dir, 'status');
    const cfg = join(dir, 'status.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nsystem: You take notes.\nprices: { claude-test: { input: 1000000, output: 1000000 } }\n${NOTE_TOOL}`);
    anthropic.reset();
    anthropic.handler = anthropicNoteTaker(1).handler;
    const cli = (args: string[], input?: string) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), ...(input !== undefined ? { input } : {}) });
    const r = await cli(['run', '--chat', '--name', 'status'], 'Take 1 note.\n/compact\n/status\n');
    expect(r.code).toBe(0);
    const spent = /^spent +(.*)$/m.exec(r.stdout + r.stderr)?.[1];
    expect(spent).toMatch(/^\$0\.00 .*\u00b7 the conversation \$[1-9][\d,]*\.\d\d/);
    const rows = (await cli(['session', 'ls', '--json'])).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toBe('status');
    expect(rows[0].last_turn).toBe('Take 1 note.');
  });
});

describe('removing a compacted run', () => {
  it('is refused while its continuation stays, naming why (rm, and prune keeps it), and done with --force or with the continuation', async () => {
    const { stateDir, cfg, into } = await compacted('removed');
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    const rm = await cli(['session', 'rm', 'removed']);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toBe(
      `logbook: cannot remove removed: it was compacted into run ${into}, which keeps only a summary of it: its records, and its spend (which lineage_budget_usd counts), would be gone from the conversation; remove it with --force, or remove run ${into} with it\n`,
    );
    await olderThanASecond();
    // The continuation goes on (and stops at once at max_iterations, which counts on): only the compacted run is old and suspended.
    expect((await cli(['run', '--resume', into])).code).toBe(5);
    const prune = await cli(['session', 'prune', '--older-than', '1s', '--status', 'suspended', '--dry-run']);
    expect(prune.stdout).not.toMatch(/would remove removed /);
    expect(prune.stderr).toMatch(/^kept removed \(suspended, .*\): it was compacted into run /m);
    expect((await cli(['session', 'show', 'removed'])).code).toBe(0);
    const forced = await cli(['session', 'rm', 'removed', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe('removed run removed\n');
  });
});

describe('a refusal for length with compact_at: false', () => {
  it('names the command that compacts the run, which works', async () => {
    const stateDir = join(dir, 'off');
    const cfg = join(dir, 'off.yaml');
    writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 100\ncompact_at: false\nsystem: You take notes.\n${NOTE_TOOL}`);
    anthropic.reset();
    anthropic.contextWindow = 2500;
    const model = anthropicNoteTaker(40);
    anthropic.handler = model.handler;
    try {
      const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv(), timeoutMs: 60_000 });
      const r = await cli(['run', '--name', 'off', 'Take 40 notes.']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^logbook: anthropic refused the request as longer than the model's context window .*; the config turns compaction off \\(compact_at: false\\); compact it, then resume where that says: logbook session compact off --config ${cfg} --state-dir ${stateDir} \\(or set compact_at in the config, so that runs compact by themselves\\)$`,
          'm',
        ),
      );
      const compact = await cli(['session', 'compact', 'off']);
      expect(compact.stderr).not.toMatch(/^logbook:/m);
      expect(compact.code).toBe(0);
      expect(model.state.summaries).toBe(1);
    } finally {
      anthropic.contextWindow = undefined;
    }
  }, 90_000);
});

describe('a resume of a compacted run whose continuation completed', () => {
  it('is refused with the follow-up that goes on, the prompt given kept', async () => {
    const { stateDir, cfg, into } = await compacted('done');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('max_iterations: 3', 'max_iterations: 10'));
    const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: anthropicEnv() });
    expect((await cli(['run', '--resume', into, '--force'])).code).toBe(0); // the continuation completes
    const r = await cli(['run', '--resume', 'done', 'And then?', '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`logbook: run done was compacted into run ${into} at seq 8; its conversation goes on there: logbook run --resume ${into} --config ${cfg} --state-dir ${stateDir} 'And then?'\n`);
  });
});
