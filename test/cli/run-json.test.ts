/**
 * `logbook run --json`: stdout is the run's record stream, each line the very
 * bytes the journal stores, meta first. Through the real binary.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRecord, validateRecord } from '../../src/index.js';
import { runCli, runCrashing } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig } from '../helpers/five-notes.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-json-');
const stateDir = join(dir, 'state');
const config = join(dir, 'agent.yaml');
const journal = (id: string): string[] => readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8').split('\n').filter(Boolean);
const lines = (stdout: string): string[] => stdout.split('\n').filter(Boolean);
const run = (args: string[], input?: string) =>
  runCli(['run', '--config', config, '--state-dir', stateDir, '--json', ...args], { cwd: dir, ...(input !== undefined ? { input } : {}) });

beforeAll(() => {
  writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
  writeFileSync(config, fiveNotesConfig({ note: 'echo "noted $1"' }));
});

describe('logbook run --json', () => {
  it('prints every record of a run with tools as the journal stores it, meta first, and nothing else on stdout', async () => {
    const r = await run(['--name', 'tools', 'Take five notes.']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(journal('tools'));
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines(r.stdout)[0]!)).toMatchObject({ seq: 1, meta: { run_id: 'tools' } });
    expect(r.stderr).toMatch(/» sh -c/); // narration stays on stderr
    expect(r.stderr).toMatch(/Noted a to e\./); // and so does the answer
  });

  it('continues the stream across a kill and a resume: the resume prints the meta, then only the records it adds', async () => {
    const killed = await runCrashing(['run', '--config', config, '--state-dir', stateDir, '--json', '--name', 'killed', 'Take five notes.'], 'kill-after-seq:4', {
      cwd: dir,
    });
    expect(killed.signal).toBe('SIGKILL');
    // A record printed is durable; the kill may come between the last one's fsync and its print.
    const before = lines(killed.stdout);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before).toEqual(journal('killed').slice(0, before.length));
    const resumed = await run(['--resume', 'killed']);
    expect(resumed.code).toBe(0);
    const after = journal('killed');
    expect(lines(resumed.stdout)).toEqual([after[0], ...after.slice(4)]);
  });

  it('streams a chat, follow-ups included', async () => {
    writeFileSync(join(dir, 'chat.json'), JSON.stringify({ turns: [...FIVE_NOTES_SCRIPT.turns, { text: 'You are welcome.' }] }));
    writeFileSync(join(dir, 'chat.yaml'), fiveNotesConfig({ note: 'echo "noted $1"' }).replace('script: script.json', 'script: chat.json'));
    const r = await runCli(['run', '--config', join(dir, 'chat.yaml'), '--state-dir', stateDir, '--json', '--chat', '--name', 'chatty', 'Take five notes.'], {
      cwd: dir,
      input: 'thanks\n',
    });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(journal('chatty'));
    expect(lines(r.stdout).map((l) => Object.keys(decodeRecord(l))[1])).toContain('user');
  });

  it('streams the records an ephemeral run would have stored, each valid by the schema', async () => {
    const r = await run(['--ephemeral', 'Take five notes.']);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(10);
    out.forEach((line, i) => {
      expect(validateRecord(line), line).toEqual({ valid: true });
      expect(decodeRecord(line).seq).toBe(i + 1);
    });
  });
});
