/**
 * Live text for watchers, through the binary on a terminal (tmux), against
 * the local Messages server streaming slowly: a `session watch` in another
 * terminal shows the words of an answer as they stream, marked as not yet
 * journaled, before its record exists; the record replaces them (shown once,
 * the mark gone); and a watcher that joins mid-answer shows it from its start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, textOf, type JournalRecord } from '../../src/index.js';
import { LIVE_MARK } from '../../src/render/live-block.js';
import { BIN } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
let watcher: Tmux | undefined;
let writer: ChildProcess | undefined;
afterEach(() => {
  watcher?.kill();
  writer?.kill('SIGKILL');
  watcher = writer = undefined;
  anthropic.reset();
});

const LINES = Array.from({ length: 6 }, (_, i) => `Line ${i + 1} of the answer, streamed slowly.`);
const ANSWER = LINES.join('\n');

function setup() {
  const dir = tempDir();
  writeFileSync(join(dir, 'agent.yaml'), `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\n`);
  const state = join(dir, 'state');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-test', NO_COLOR: '1' };
  const store = new FileStore(join(state, 'runs'));
  const answers = async (id: string): Promise<string[]> => (await store.load(id)).records.flatMap((r: JournalRecord) => ('assistant' in r ? [textOf(r.assistant.message)] : []));
  /** The one-shot run `one`, its stdout piped: resolves once it has written `text`. */
  const write = (text?: string) => {
    writer = spawn(process.execPath, [BIN, 'run', '--name', 'one', '--state-dir', state, 'tell me'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((resolve) => writer!.on('close', resolve));
    const wrote = new Promise<void>((resolve) => {
      writer!.stdout!.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        if (text !== undefined && out.includes(text)) resolve();
      });
    });
    return { exited, wrote };
  };
  const watch = () => {
    watcher = Tmux.start([process.execPath, BIN, 'session', 'watch', 'one', '--wait', '--state-dir', state], { env, cwd: dir, width: 100, height: 30 });
    return watcher;
  };
  return { write, watch, answers };
}

describe('session watch of an answer as it streams', () => {
  it('shows its words before its record exists, marked not yet journaled, then the record in their place', async () => {
    const { write, watch, answers } = setup();
    anthropic.reply({ message: { content: [{ type: 'text', text: ANSWER }], chunkSize: 6 }, delayMs: 60 });
    const t = watch();
    await t.waitFor(/waiting for run one/, 'the watch waiting for the run');
    const { exited } = write();
    await t.waitFor(LINES[1]!, 'the second line streamed, on the watcher');
    expect(t.text()).toContain(LIVE_MARK);
    expect(await answers('one')).toEqual([]); // nothing of it is journaled yet
    expect(anthropic.requests[0]!.answered).toBe(false);
    expect(await exited).toBe(0);
    expect(await t.exitStatus()).toBe(0);
    const screen = t.text();
    expect(screen).not.toContain(LIVE_MARK);
    expect(screen.split(LINES[0]!)).toHaveLength(2); // the record's text, once
    expect(screen).toContain(ANSWER);
  });

  it('joined mid-answer, shows the answer from its start', async () => {
    const { write, watch } = setup();
    anthropic.reply({ message: { content: [{ type: 'text', text: ANSWER }], chunkSize: 6 }, delayMs: 100 });
    const { wrote, exited } = write(LINES[1]);
    await wrote;
    const t = watch();
    await t.waitFor(LINES[0]!, 'the first line, streamed before the watcher joined');
    expect(t.text()).toContain(LIVE_MARK);
    expect(await exited).toBe(0);
    expect(await t.exitStatus()).toBe(0);
  });
});
