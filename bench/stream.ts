/**
 * Streamed text: from the provider writing a text delta to its first character
 * on the terminal. A model server of its own (bench/stream/sse-server.ts: the
 * Messages API's SSE, text deltas 5 to 45 ms apart) streams one answer per
 * request; `logbook run` shows it on a pseudo-terminal (Python's pty module: a
 * process that reads the terminal as an emulator would and notes when each read
 * came), and in alternating rounds a bare Node client reads the same kind of
 * stream straight from the socket (bench/stream/sse-client.ts). Every process
 * notes the machine's monotonic clock, which they all share.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { skipped, type Section } from './lib/report.js';
import { median, num, percentile, ms } from './lib/stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, 'stream', 'sse-server.js');
const CLIENT = join(HERE, 'stream', 'sse-client.js');
/** p99 of the first character on the terminal, above the bare client's p99. */
const TARGET_MS = 20;
const COLUMNS = 120;
const ROWS = 40;
const DEADLINE_MS = 120_000;

/**
 * Runs argv on a new pseudo-terminal of COLUMNS × ROWS and prints each read of
 * it as `NS HEX` (NS: time.monotonic_ns(), CLOCK_MONOTONIC, the clock Node's
 * process.hrtime reads); exits with the command's exit code.
 */
const PTY_CAPTURE = `
import fcntl, os, pty, struct, sys, termios, time
cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.execvp(argv[0], argv)
out = sys.stdout.buffer
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out.write(b'%d %s\\n' % (time.monotonic_ns(), data.hex().encode()))
out.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/** A delta's key: request and index. */
const key = (request: number, index: number): string => `${request}:${index}`;

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcessWithoutNullStreams, what: string): Promise<Done> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} took over ${DEADLINE_MS} ms`));
    }, DEADLINE_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** When each delta's word first reached the terminal: the read holding its first character. */
function terminalArrivals(capture: string): Map<string, bigint> {
  const reads = capture
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const [at, hex] = row.split(' ');
      return { at: BigInt(at!), text: Buffer.from(hex ?? '', 'hex').toString('latin1') };
    });
  let screen = '';
  const starts: { offset: number; at: bigint }[] = [];
  for (const r of reads) {
    starts.push({ offset: screen.length, at: r.at });
    screen += r.text;
  }
  const seen = new Map<string, bigint>();
  let i = 0;
  for (const m of screen.matchAll(/w(\d{3})(\d{4})(?!\d)/g)) {
    const k = key(Number(m[1]), Number(m[2]));
    if (seen.has(k)) continue;
    while (i + 1 < starts.length && starts[i + 1]!.offset <= m.index) i++;
    seen.set(k, starts[i]!.at);
  }
  return seen;
}

export async function benchStream(opts: BenchOptions): Promise<Section> {
  const python = await collect(spawn('python3', ['-c', 'import pty, termios'], { stdio: ['pipe', 'pipe', 'pipe'] }), 'python3').catch(() => null);
  if (python === null || python.code !== 0) {
    return skipped('streamed text, first character on the terminal', `p99 ≤ ${TARGET_MS} ms above the bare client's`, "python3 (with its pty module) is not installed");
  }
  const deltas = opts.quick ? 30 : 60;
  const rounds = opts.quick ? 4 : 10;
  const server = spawn(process.execPath, [SERVER, String(deltas)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const served = collect(server, 'the model server');
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const onData = (d: string): void => {
      seen += d;
      const m = /^port (\d+)$/m.exec(seen);
      if (m !== null) {
        server.stdout.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    server.stdout.on('data', onData);
    server.on('exit', () => reject(new Error(`the model server exited: ${seen}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const dir = tempDir('stream');
  mkdirSync(join(dir, 'state'));
  const config = join(dir, 'agent.yaml');
  writeFileSync(config, `provider: anthropic\nmodel: bench-model\nbase_url: ${url}\nmax_tokens: 1024\nmax_iterations: 2\nprompt_cache: false\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'bench-key' };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;

  const onTerminal = new Map<string, bigint>();
  const onClient = new Map<string, bigint>();
  const logbookRequests: number[] = [];
  const clientRequests: number[] = [];
  const logbook = async (): Promise<void> => {
    const run = spawn('python3', ['-c', PTY_CAPTURE, String(COLUMNS), String(ROWS), process.execPath, BIN, 'run', '--config', config, '--state-dir', join(dir, 'state'), 'Tell a long story.'], {
      cwd: dir,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const done = await collect(run, 'logbook run on a terminal');
    const seen = terminalArrivals(done.stdout);
    if (done.code !== 0 || seen.size < deltas) throw new Error(`logbook run on a terminal exited ${done.code} showing ${seen.size} of ${deltas} words: ${done.stderr.slice(0, 2000)}`);
    for (const [k, at] of seen) onTerminal.set(k, at);
    logbookRequests.push(Number([...seen.keys()][0]!.split(':')[0]));
  };
  const bare = async (): Promise<void> => {
    const done = await collect(spawn(process.execPath, [CLIENT, url], { stdio: ['pipe', 'pipe', 'pipe'] }), 'the bare client');
    const rows = done.stdout.split('\n').filter((l) => l.startsWith('got '));
    if (done.code !== 0 || rows.length !== deltas) throw new Error(`the bare client exited ${done.code} with ${rows.length} of ${deltas} deltas: ${done.stderr}`);
    for (const row of rows) {
      const [, request, index, at] = row.split(' ');
      onClient.set(key(Number(request), Number(index)), BigInt(at!));
    }
    clientRequests.push(Number(rows[0]!.split(' ')[1]));
  };
  try {
    for (let r = 0; r < rounds; r++) for (const step of r % 2 === 0 ? [logbook, bare] : [bare, logbook]) await step();
  } finally {
    server.kill('SIGTERM');
  }
  const sent = new Map<string, bigint>();
  for (const row of (await served).stdout.split('\n')) {
    const m = /^sent (\d+) (\d+) (\d+)$/.exec(row);
    if (m !== null) sent.set(key(Number(m[1]), Number(m[2])), BigInt(m[3]!));
  }
  const latencies = (arrived: Map<string, bigint>): number[] =>
    [...arrived].map(([k, at]) => {
      const from = sent.get(k);
      if (from === undefined) throw new Error(`delta ${k} was never sent`);
      return Number(at - from) / 1e6;
    });
  const ours = latencies(onTerminal);
  const theirs = latencies(onClient);
  const firsts = logbookRequests.map((request) => Number(onTerminal.get(key(request, 0))! - sent.get(key(request, 0))!) / 1e6);
  const [o50, o99, b50, b99] = [percentile(ours, 50), percentile(ours, 99), percentile(theirs, 50), percentile(theirs, 99)];
  const above = o99 - b99;
  return {
    rows: [
      {
        what: `streamed text: a text delta's first character on the terminal after the provider sends it, p50 / p99 (${num(ours.length)} deltas)`,
        measured: `${ms(o50)} / ${ms(o99)}`,
        baseline: `the SSE event reaching a bare Node client: ${ms(b50)} / ${ms(b99)}`,
        figure: `p99 ${ms(above)} above the baseline's`,
        target: `p99 ≤ ${TARGET_MS} ms above`,
        verdict: opts.quick ? '—' : above <= TARGET_MS ? 'met' : 'missed',
        growth: '—',
      },
    ],
    notes: [
      `Streamed text: \`logbook run --config agent.yaml "…"\` (the anthropic provider, its SDK's streaming, Markdown rendered on a ${COLUMNS}×${ROWS} color terminal) on a pseudo-terminal read by a Python process (its pty module), against a bare Node client reading the same server's stream from its socket (\`http.request\`, the SSE events split and parsed), ${rounds} rounds each alternating, ${deltas} deltas per answer 5 to 45 ms apart (a word each, a paragraph every twelfth). A delta's latency runs from the server's clock just before it writes the event to the clock of the read that brought the delta's first character: to the pty's reader, or to the client. The first delta of each answer took ${ms(median(firsts))} (median of ${firsts.length}) to reach the terminal.`,
    ],
  };
}
