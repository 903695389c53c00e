/**
 * Journals this build did not write the way it writes them: the reference
 * writer's empty reply (`"content":null`), a newer writer's unknown fields and
 * terminal reason, and a run that went on after a terminal record. Each is
 * inspected and resumed through the real binary (built dist/), with the script
 * provider, in temporary state directories.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRecord } from '../../src/index.js';
import { runCli, runCrashing, type CliResult } from '../helpers/cli.js';
import { NEWER_WRITER_CONFIG, newerWriterLines } from '../helpers/newer-writer.js';
import { meta } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const P = 'io.choria.fisk-ai.v1.session';

interface Setup {
  dir: string;
  state: string;
  log: string;
  journal: (id: string) => string;
  cli: (args: string[], input?: string, env?: Record<string, string>) => Promise<CliResult>;
  asked: () => number[];
}

/** A working dir whose agent.yaml matches the journals' fingerprint, with these script turns. */
function setup(turns: string): Setup {
  const dir = tempDir('logbook-writers-');
  const state = join(dir, 'state');
  mkdirSync(join(state, 'runs'), { recursive: true });
  writeFileSync(join(dir, 'turns.yaml'), turns);
  writeFileSync(join(dir, 'agent.yaml'), `${NEWER_WRITER_CONFIG}script: turns.yaml\n`);
  const log = join(dir, 'asked.log');
  return {
    dir,
    state,
    log,
    journal: (id) => join(state, 'runs', `${id}.jsonl`),
    cli: (args, input, env = {}) =>
      runCli([...args, '--state-dir', state], { cwd: dir, env: { TZ: 'UTC', LOGBOOK_SCRIPT_LOG: log, ...env }, ...(input !== undefined ? { input } : {}) }),
    asked: () =>
      existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { turn: number }).turn) : [],
  };
}

const ok = (r: CliResult): CliResult => {
  expect(r.stderr).not.toMatch(/^logbook:/m);
  expect(r.code).toBe(0);
  return r;
};

describe('an empty reply written "content":null', () => {
  it("is folded (and shown as null) and a one-shot run that ended on it, refused, resumes to the refusal's end without a model call", async () => {
    const s = setup('turns:\n  - text: never asked\n');
    const text =
      `${encodeRecord({ seq: 1, meta: meta('empty') })}\n` +
      `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":null},"stop_reason":"refusal","in_tokens":10,"out_tokens":0}}\n`;
    writeFileSync(s.journal('empty'), text);

    const shown = ok(await s.cli(['session', 'show', 'empty', '--json']));
    expect(shown.stdout).toContain(`{"role":"assistant","content":null}],"pending":null`);
    expect(shown.stdout).toContain(`"last_stop_reason":"refusal","terminal":null,"status":"open"`);

    // The reference journals a refusal as an error with this message; a resume of the run it left open ends it so.
    const refused = await s.cli(['run', '--resume', 'empty']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/^logbook: the model refused to respond; /m);
    expect(s.asked()).toEqual([]);
    expect(readFileSync(s.journal('empty'), 'utf8')).toBe(
      `${text}{"seq":3,"protocol":"${P}.terminal","terminal":{"reason":"error","message":"model refused to respond"}}\n`,
    );
  });

  it('a chat that got one is resumed with a follow-up, the empty turn kept in the conversation', async () => {
    const s = setup('turns:\n  - text: unused\n  - text: Second try.\n');
    const text =
      `${encodeRecord({ seq: 1, meta: meta('chat', { interactive: true }) })}\n` +
      `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":null},"stop_reason":"end_turn","in_tokens":10,"out_tokens":0}}\n` +
      `{"seq":3,"protocol":"${P}.terminal","terminal":{"reason":"suspended"}}\n`;
    writeFileSync(s.journal('chat'), text);
    const r = ok(await s.cli(['run', '--resume', 'chat'], 'try again\n'));
    expect(r.stdout).toBe('Second try.\n');
    expect(s.asked()).toEqual([1]);
    const after = readFileSync(s.journal('chat'), 'utf8');
    expect(after.startsWith(text)).toBe(true);
    expect(after.slice(text.length).split('\n')[0]).toBe(`{"seq":4,"protocol":"${P}.user","user":{"message":{"role":"user","content":[{"text":{"text":"try again"}}]}}}`);
  });
});

describe("a newer writer's journal", () => {
  it('is listed and shown with its unknown terminal reason as the status', async () => {
    const s = setup('turns:\n  - text: never asked\n');
    writeFileSync(s.journal('newer'), `${newerWriterLines('newer').join('\n')}\n`);
    const ls = ok(await s.cli(['session', 'ls']));
    expect(ls.stdout.split('\n')[1]).toMatch(/^newer\s+handed_off\s.*\stest-model\s/);
    const shown = ok(await s.cli(['session', 'show', 'newer']));
    expect(shown.stdout).toMatch(/^status +handed_off$/m);
    expect(shown.stdout).toMatch(/^where +handed_off \(to a person\)$/m);
    const json = ok(await s.cli(['session', 'show', 'newer', '--json']));
    expect(json.stdout).toContain(`"terminal":{"reason":"handed_off","message":"to a person"},"status":"handed_off"`);
    expect(json.stdout).not.toContain('speed');
  });

  it('resumes past an unknown terminal reason, and its own lines are never rewritten', async () => {
    const s = setup('turns:\n  - text: never asked\n');
    const text = `${newerWriterLines('newer').join('\n')}\n`;
    writeFileSync(s.journal('newer'), text);
    const r = ok(await s.cli(['run', '--resume', 'newer']));
    expect(r.stdout).toBe('Said hi.\n');
    expect(s.asked()).toEqual([]);
    expect(readFileSync(s.journal('newer'), 'utf8')).toBe(`${text}{"seq":6,"protocol":"${P}.terminal","terminal":{"reason":"completed"}}\n`);
  });

  it('resumes a crashed run from records with unknown fields at every level, asking only for the next turn', async () => {
    const s = setup('turns:\n  - text: never asked\n  - text: Said hi.\n    usage: { input: 12, output: 3, cache_read: 0, cache_create: 0 }\n');
    const text = `${newerWriterLines('crashed').slice(0, 3).join('\n')}\n`;
    writeFileSync(s.journal('crashed'), text);
    const r = ok(await s.cli(['run', '--resume', 'crashed']));
    expect(r.stdout).toBe('Said hi.\n');
    expect(s.asked()).toEqual([1]);
    const after = readFileSync(s.journal('crashed'), 'utf8');
    expect(after.startsWith(text)).toBe(true);
    expect(after.slice(text.length)).toBe(
      `{"seq":4,"protocol":"${P}.assistant","assistant":{"iteration":1,"message":{"role":"assistant","content":[{"text":{"text":"Said hi."}}]},"stop_reason":"end_turn","in_tokens":12,"out_tokens":3}}\n` +
        `{"seq":5,"protocol":"${P}.terminal","terminal":{"reason":"completed"}}\n`,
    );
  });

  it('is copied between stores byte for byte by session cp', async () => {
    const s = setup('turns:\n  - text: never asked\n');
    const text = `${newerWriterLines('newer').join('\n')}\n`;
    writeFileSync(s.journal('newer'), text);
    const to = tempDir();
    const r = await runCli(['session', 'cp', 'newer', '--from-state-dir', s.state, '--to-state-dir', to], { cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(readFileSync(join(to, 'runs', 'newer.jsonl'), 'utf8')).toBe(text);
  });
});

describe('a suspended run that was resumed and then killed', () => {
  it('folds terminal = suspended and status = open, is listed and shown open, and resumes', async () => {
    const s = setup('turns:\n  - text: Hello.\n  - text: Working on it.\n  - text: Done.\n');
    ok(await s.cli(['run', '--chat', '--name', 'sk', 'hi'], ''));
    expect(readFileSync(s.journal('sk'), 'utf8').trimEnd().split('\n').at(-1)).toBe(`{"seq":3,"protocol":"${P}.terminal","terminal":{"reason":"suspended"}}`);

    // Resumed, then killed once the next model turn (seq 5) is durable.
    const killed = await runCrashing(['run', '--config', join(s.dir, 'agent.yaml'), '--resume', 'sk', '--state-dir', s.state], 'kill-after-seq:5', {
      cwd: s.dir,
      env: { TZ: 'UTC', LOGBOOK_SCRIPT_LOG: s.log },
      input: 'more\n',
    });
    expect(killed.signal).toBe('SIGKILL');

    const json = ok(await s.cli(['session', 'show', 'sk', '--json']));
    expect(json.stdout).toContain(`"last_stop_reason":"end_turn","terminal":{"reason":"suspended"},"status":"open"`);
    // Its status is open; nobody holds it, so the file store lists and shows it as interrupted.
    expect(ok(await s.cli(['session', 'show', 'sk'])).stdout).toMatch(/^status +interrupted$/m);
    expect(ok(await s.cli(['session', 'ls'])).stdout.split('\n')[1]).toMatch(/^sk\s+interrupted\s/);
    // Nothing in the transcript says the run ended.
    expect(ok(await s.cli(['session', 'show', 'sk', '--transcript'])).stdout).not.toMatch(/run suspended/);

    const resumed = ok(await s.cli(['run', '--resume', 'sk'], 'finish\n'));
    expect(resumed.stdout).toBe('Done.\n');
    expect(s.asked()).toEqual([0, 1, 2]);
  });
});
