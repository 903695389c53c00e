/**
 * `logbook session search` through the real binary over a store of many runs:
 * a match in each place a run holds text (prompt, prose, thinking, tool call,
 * tool result, follow-up), newest runs first, the filters, the output forms;
 * and, structurally, that runs are read as streams, a record at a time, never
 * whole, and no further than --limit needs.
 */
import { closeSync, mkdirSync, openSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchRun } from '../../src/api/search.js';
import { JournalStore, encodeRecord, textMatcher, type Backend, type Payload, type StreamOptions, type Streamed } from '../../src/index.js';
import { MemoryBackend } from '../../src/store/memory/memory-store.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { storeRun } from '../helpers/records.js';
import { HOSTILE, UNSAFE_CHARS, call, commandResult, followUp, records, result, text, thinking, turn } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const state = tempDir('logbook-search-');
const runs = join(state, 'runs');
const DAY = 86_400_000;

/** Writes run `id` as a journal file, last changed `daysAgo` days ago. */
function put(id: string, payloads: Payload[], options: { prompt?: string; daysAgo: number }): void {
  const lines = records(id, payloads, options.prompt).map(encodeRecord);
  const path = join(runs, `${id}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  const when = new Date(Date.now() - options.daysAgo * DAY);
  utimesSync(path, when, when);
}

const done: Payload = { terminal: { reason: 'completed' } };
const suspended: Payload = { terminal: { reason: 'suspended', message: 'interrupted' } };

/** An ordinary turn with a tool call and its result, and nothing a search here looks for. */
const filler = (i: number): Payload[] => [turn(0, [text(`Looking at file ${i}.`), call(`c${i}`, 'read', { path: `/src/f${i}.ts` })]), result(`c${i}`, `line one\nline two of ${i}`)];

const cli = (args: string[]): Promise<CliResult> => runCli(['session', 'search', ...args, '--state-dir', state], { timeoutMs: 60_000 });

/** The hits of text output: run id, seq and role of each line. */
const hits = (out: string): string[] =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(/\s+/).slice(0, 3).join(' '));

beforeAll(() => {
  mkdirSync(runs, { recursive: true });
  for (let i = 0; i < 40; i++) put(`filler-${String(i).padStart(2, '0')}`, [...filler(i), done], { daysAgo: 1 + i / 10 });
  // One run per place, each newer than the last, a needle in a different case each time.
  put('in-prompt', [...filler(100), done], { prompt: 'Find the ZEBRA in the prompt', daysAgo: 0.6 });
  put('in-prose', [turn(0, [text('The Zebra is in my prose.')]), done], { daysAgo: 0.5 });
  put('in-thinking', [turn(0, [thinking('a zebra I thought of'), text('Nothing to see.')]), done], { daysAgo: 0.4 });
  put('in-call', [turn(0, [text('Reading.'), call('c1', 'read_file', { path: '/srv/zebra.txt' })]), result('c1', 'ok'), suspended], { daysAgo: 0.3 });
  put('in-result', [turn(0, [call('c1', 'sh', { cmd: 'cat animals' })]), commandResult('c1', ['cat', 'animals'], 0, 'cat\ndog\nzebra crossing\n'), done], { daysAgo: 0.2 });
  put('in-follow-up', [turn(0, [text('Done.')]), followUp('and the zebra?'), turn(1, [text('Striped.')])], { daysAgo: 0.1 });
  // Old, and matching in two places of one record and two records.
  put('old-twice', [turn(0, [text('zebra one'), text('zebra two'), call('c1', 'zebra_tool', { q: 'zebra' })]), result('c1', 'zebra'), done], { daysAgo: 30 });
  put('hostile', [turn(0, [text(`zebra ${HOSTILE}`)]), done], { daysAgo: 40 });
});

describe('session search', () => {
  it('lists every flag, the environment and the exit codes in --help', async () => {
    const r = await runCli(['session', 'search', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--json', '--status <status>', '--since <when>', '--regex', '--regex-timeout <duration>', '--limit <n>', '--config <file>', '--state-dir <dir>', '--no-color', '--verbose']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toMatch(/Environment:\n  LOGBOOK_CONFIG .*\n  LOGBOOK_CONFIG_CACHE=0 .*\n  LOGBOOK_DEBUG=1 .*\n  XDG_STATE_HOME .*\n  NO_COLOR/);
    expect(r.stdout).toMatch(/Exit codes:\n  0 +done\n  1 +an error.*\n  2 +a usage error.*\n  130 +stopped by Ctrl-C/);
  });

  it('finds the text in each place a run holds it, case-insensitively, newest runs first', async () => {
    const r = await cli(['zebra']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(hits(r.stdout)).toEqual([
      'in-follow-up 3 user',
      'in-result 3 tool_result',
      'in-call 2 tool_call',
      'in-thinking 2 thinking',
      'in-prose 2 assistant',
      'in-prompt 1 prompt',
      // One line per record and place: the first text of the turn, one of its call's places.
      'old-twice 2 assistant',
      'old-twice 2 tool_call',
      'old-twice 3 tool_result',
      'hostile 2 assistant',
    ]);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('in-result      3  tool_result  cat dog zebra crossing');
    expect(lines).toContain('in-call      2  tool_call    {"path":"/srv/zebra.txt"}');
    expect(lines).toContain('in-prompt      1  prompt       Find the ZEBRA in the prompt');
    // Journal text reaches the terminal sanitized.
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
  }, 60_000);

  it('searches a command result as its output, not its envelope, and cuts a long text around the match', async () => {
    const envelope = await cli(['exit_code']);
    expect(envelope.stdout).toBe('');
    expect(envelope.stderr).toBe(`no match in 48 runs of the file store in ${runs}\n`);
    expect(envelope.code).toBe(0);
    const long = await cli(['line two of 7']);
    expect(long.stdout).toBe('filler-07      3  tool_result  line one line two of 7\n');
  }, 60_000);

  it('takes a regular expression with --regex, and refuses one that is not', async () => {
    const r = await cli(['--regex', 'zebra (one|crossing)']);
    expect(hits(r.stdout)).toEqual(['in-result 3 tool_result', 'old-twice 2 assistant']);
    const bad = await cli(['--regex', 'zebra(']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^logbook: --regex "zebra\(" is not a regular expression: /);
  }, 60_000);

  it('keeps to the runs --status and --since name, and stops at --limit', async () => {
    const open = await cli(['zebra', '--status', 'interrupted,suspended']);
    expect(hits(open.stdout)).toEqual(['in-follow-up 3 user', 'in-call 2 tool_call']);
    const recent = await cli(['zebra', '--since', '2d']);
    expect(hits(recent.stdout).map((h) => h.split(' ')[0])).toEqual(['in-follow-up', 'in-result', 'in-call', 'in-thinking', 'in-prose', 'in-prompt']);
    const day = new Date(Date.now() - 35 * DAY);
    const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    const since = await cli(['zebra', '--since', date, '--status', 'completed']);
    expect(hits(since.stdout).map((h) => h.split(' ')[0])).toEqual(['in-result', 'in-thinking', 'in-prose', 'in-prompt', 'old-twice', 'old-twice', 'old-twice']);
    const limited = await cli(['zebra', '--limit', '2']);
    expect(hits(limited.stdout)).toEqual(['in-follow-up 3 user', 'in-result 3 tool_result']);
    for (const [flag, value, message] of [
      ['--since', 'last week', /"last week" is neither a duration/],
      ['--status', 'done', /"done" is not a status; one of: running, interrupted, open, completed/],
      ['--limit', '0', /--limit.*a positive whole number is needed/],
    ] as const) {
      const r = await cli(['zebra', flag, value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 90_000);

  it('prints one JSON object per match with --json', async () => {
    const r = await cli(['zebra', '--json', '--limit', '3']);
    const objects = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects).toEqual([
      // Each run is a conversation of its own here: the id of its first run is its own.
      { run_id: 'in-follow-up', seq: 3, role: 'user', snippet: 'and the zebra?', status: 'interrupted', updated: expect.any(String), conversation: 'in-follow-up' },
      { run_id: 'in-result', seq: 3, role: 'tool_result', snippet: 'cat dog zebra crossing', status: 'completed', updated: expect.any(String), conversation: 'in-result' },
      { run_id: 'in-call', seq: 2, role: 'tool_call', snippet: '{"path":"/srv/zebra.txt"}', status: 'suspended', updated: expect.any(String), conversation: 'in-call' },
    ]);
  }, 60_000);

  it('names a run it cannot read, goes on with the others, and exits 1', async () => {
    const broken = tempDir();
    mkdirSync(join(broken, 'runs'));
    const good = records('good', [turn(0, [text('a zebra')]), done]).map(encodeRecord);
    writeFileSync(join(broken, 'runs', 'good.jsonl'), `${good.join('\n')}\n`);
    const bad = records('bad', [turn(0, [text('a zebra')]), done]).map(encodeRecord);
    // A search decodes the lines that may hold the text: this one does, and is not a record.
    writeFileSync(join(broken, 'runs', 'bad.jsonl'), `${bad[0]}\n{"seq":2,"protocol":"nonsense","zebra":1}\n${bad[2]}\n`);
    const r = await runCli(['session', 'search', 'zebra', '--state-dir', broken]);
    expect(r.code).toBe(1);
    expect(hits(r.stdout)).toEqual(['good 2 assistant']);
    expect(r.stderr).toMatch(/^logbook: cannot search run bad: \S*\/runs\/bad\.jsonl line 2 is corrupt: .*\nlogbook: 1 run could not be searched \(named above\)/);
  }, 60_000);

  it('reads a journal as a stream and no further than --limit needs: a journal with a 3 GB hole after its first records', async () => {
    const huge = tempDir();
    mkdirSync(join(huge, 'runs'));
    const path = join(huge, 'runs', 'huge.jsonl');
    const lines = records('huge', [turn(0, [text('the zebra is here')]), done]).map(encodeRecord);
    writeFileSync(path, `${lines[0]}\n${lines[1]}\n`);
    // A sparse hole no whole-file read could hold (a string or buffer that large fails), then the last record.
    const fd = openSync(path, 'r+');
    try {
      writeSync(fd, `\n${lines[2]}\n`, 3 * 2 ** 30);
    } finally {
      closeSync(fd);
    }
    const r = await runCli(['session', 'search', 'zebra', '--limit', '1', '--state-dir', huge]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(hits(r.stdout)).toEqual(['huge 2 assistant']);
  }, 60_000);
});

/** A memory backend whose whole-run read is refused, and whose streams count the lines they give. */
class CountingBackend extends MemoryBackend {
  given = 0;

  override async read(): Promise<never> {
    throw new Error('a search must not read a whole run');
  }

  /** One line a step, so a reader that takes more than it needs would show. */
  override async *stream(id: string, options: StreamOptions): AsyncGenerator<Streamed> {
    for await (const step of super.stream(id, options)) {
      if (!('lines' in step)) yield step;
      else {
        for (const line of step.lines) {
          this.given++;
          yield { lines: [line] };
        }
      }
    }
  }
}

describe('searchRun', () => {
  it('takes a run a line at a time, decoding only lines that may match, and stops where its reader does', async () => {
    const backend = new CountingBackend();
    const store = new JournalStore(backend as Backend);
    const payloads: Payload[] = [];
    for (let i = 0; i < 100; i++) payloads.push(...filler(i));
    payloads.splice(50, 0, turn(0, [text('a zebra in the middle')]));
    await storeRun(store, 'long', payloads);

    const found: number[] = [];
    for await (const hit of searchRun(store, 'long', textMatcher('zebra'))) {
      found.push(hit.seq);
      break; // as --limit does
    }
    expect(found).toEqual([52]);
    // The lines up to the match were read, and not one after it: nothing reads ahead.
    expect(backend.given).toBe(52);
    const matcher = textMatcher('zebra');
    expect(matcher.mightMatch(encodeRecord({ seq: 2, ...filler(1)[0]! } as never))).toBe(false);
  });
});
