/**
 * `logbook completion bash|zsh|fish` through the real binary, the scripts
 * sourced in the real shells: run ids are asked of logbook at completion time,
 * from the store the command line names.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { meta as runMeta } from '../helpers/records.js';
import { hostileRun, HOSTILE, UNSAFE_CHARS, writeRun } from '../helpers/runs.js';
import { BASH_COMPLETION, shellTestsEnabled } from '../helpers/shells.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);

/** A state dir with runs a prefix can tell apart (beta-) or not (alpha-). */
async function stateWithRuns(): Promise<string> {
  const state = tempDir();
  const store = new FileStore(join(state, 'runs'));
  for (const id of ['alpha-1234', 'alpha-5678', 'beta-0001']) await (await store.create(id, runMeta(id, { prompt: `prompt of ${id}` }))).close();
  return state;
}

const home = tempDir();
/** What the shells get: logbook's own start-up needs, and homes that are not the real ones. */
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  XDG_STATE_HOME: tempDir(),
  XDG_CONFIG_HOME: tempDir(),
  NO_COLOR: '1',
  TERM: 'xterm-256color',
};

/** A script in the shell's syntax defining `logbook` as the built command. */
const LOGBOOK_FUNCTION = {
  bash: `logbook() { '${process.execPath}' '${BIN}' "$@"; }`,
  zsh: `logbook() { '${process.execPath}' '${BIN}' "$@"; }`,
  fish: `function logbook; '${process.execPath}' '${BIN}' $argv; end`,
};

async function script(shell: 'bash' | 'zsh' | 'fish'): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code, r.stderr).toBe(0);
  const path = join(tempDir(), `logbook.${shell}`);
  writeFileSync(path, r.stdout);
  return path;
}

describe('logbook complete, which the scripts call', () => {
  it('describes each run id by its status and prompt, sanitized, one line each', async () => {
    const state = tempDir();
    await writeRun(state, 'hostile', hostileRun(), `prompt ${HOSTILE}\nsecond line`);
    const r = await runCli(['complete', '--', 'session', 'show', '--state-dir', state, 'ho']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
    expect(r.stdout).toMatch(/^hostile\terror: prompt A.*\u2026\n:4\n$/);
  });
});

describe.runIf(shellTestsEnabled('bash'))('the bash completion script', () => {
  /** What the completion function puts in COMPREPLY for the command line `line` (completing its last word). */
  async function complete(path: string, line: string): Promise<string[]> {
    const words = line.split(' ');
    const program = [
      `source '${BASH_COMPLETION}'`,
      LOGBOOK_FUNCTION.bash,
      `source '${path}'`,
      `COMP_LINE='${line}'`,
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      'COMP_POINT=${#COMP_LINE}',
      '__logbook_complete 2>/dev/null',
      'printf "<%s>\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', program], { env });
    // Each candidate as bash holds it, an empty one included (it would stop TAB from completing).
    return stdout === '<>\n' ? [] : stdout.split('\n').filter(Boolean).map((line) => line.slice(1, -1));
  }

  it('completes a run id from a unique prefix, from the store the command line names', { timeout: 90_000 }, async () => {
    const state = await stateWithRuns();
    const path = await script('bash');
    expect(await complete(path, `logbook session show --state-dir ${state} bet`)).toEqual(['beta-0001']);
    expect((await complete(path, `logbook session rm --state-dir ${state} alpha-1234 alp`)).sort()).toEqual(['alpha-1234', 'alpha-5678']);
    expect(await complete(path, `logbook run --state-dir ${state} --resume bet`)).toEqual(['beta-0001']);
    // Without --state-dir, the default store ($XDG_STATE_HOME/logbook/runs) has none of them.
    expect(await complete(path, 'logbook session show bet')).toEqual([]);
  });

  it('completes a run id from a part of it that only one id has, as the id is resolved; not from a part several share', { timeout: 90_000 }, async () => {
    const state = await stateWithRuns();
    const path = await script('bash');
    expect(await complete(path, `logbook session show --state-dir ${state} 5678`)).toEqual(['alpha-5678']);
    expect(await complete(path, `logbook run --state-dir ${state} --resume 0001`)).toEqual(['beta-0001']);
    expect(await complete(path, `logbook session show --state-dir ${state} lpha`)).toEqual([]);
  });

  it('can be sourced again in the same shell (eval "$(logbook completion bash)" twice) without an error, and still completes', { timeout: 90_000 }, async () => {
    const program = [
      `source '${BASH_COMPLETION}'`,
      LOGBOOK_FUNCTION.bash,
      'eval "$(logbook completion bash)"',
      'eval "$(logbook completion bash)"',
      'COMP_LINE="logbook sess"; COMP_WORDS=(logbook sess); COMP_CWORD=1; COMP_POINT=${#COMP_LINE}',
      '__logbook_complete 2>/dev/null', // compopt complains outside a real completion, as in complete() above
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const { stdout, stderr } = await run('bash', ['--norc', '--noprofile', '-c', program], { env });
    expect(stderr).toBe('');
    expect(stdout.split('\n').filter(Boolean)).toEqual(['session']);
  });

  it('completes commands, options and statuses', { timeout: 90_000 }, async () => {
    const path = await script('bash');
    expect(await complete(path, 'logbook sess')).toEqual(['session']);
    expect((await complete(path, 'logbook session p')).sort()).toEqual(['prune']);
    expect(await complete(path, 'logbook session ls --js')).toEqual(['--json']);
    expect(await complete(path, 'logbook session ls --status inter')).toEqual(['interrupted']);
    expect(await complete(path, 'logbook completion z')).toEqual(['zsh']);
  });

  describe.runIf(process.platform === 'linux')('on a real terminal', () => {
    let tmux: Tmux | undefined;
    afterEach(() => tmux?.kill());

    it('TAB after a unique prefix, or a part only one id has, writes the whole run id', async () => {
      const state = await stateWithRuns();
      const path = await script('bash');
      tmux = Tmux.start(['bash', '--norc', '--noprofile'], { env, width: 200 });
      tmux.type(`PS1='$ '; source '${BASH_COMPLETION}'; ${LOGBOOK_FUNCTION.bash}; source '${path}'; clear\n`);
      await tmux.waitFor(/^\$$/m, 'a prompt'); // the screen's rows come without trailing blanks
      tmux.type(`logbook session show --state-dir ${state} bet`);
      tmux.keys('Tab');
      await tmux.waitFor(`logbook session show --state-dir ${state} beta-0001`, 'the completed id');
      tmux.keys('C-u');
      tmux.type(`logbook session show --state-dir ${state} 5678`);
      tmux.keys('Tab');
      await tmux.waitFor(`logbook session show --state-dir ${state} alpha-5678`, 'the id completed from a part of it');
    });
  });
});

describe.runIf(shellTestsEnabled('zsh'))('the zsh completion script', () => {
  it('parses (zsh -n) and, loaded after compinit, completes a run id on TAB', { timeout: 60_000 }, async () => {
    const path = await script('zsh');
    await run('zsh', ['-n', path], { env });
    const state = await stateWithRuns();
    const tmux = Tmux.start(['zsh', '-f'], { env, width: 200 });
    try {
      tmux.type(`PS1='%% '; autoload -U compinit && compinit -u; ${LOGBOOK_FUNCTION.zsh}; source '${path}'; clear\n`);
      await tmux.waitFor(/^%$/m, 'a prompt');
      tmux.type(`logbook session show --state-dir ${state} bet`);
      tmux.keys('Tab');
      await tmux.waitFor(`logbook session show --state-dir ${state} beta-0001`, 'the completed id');
      tmux.keys('C-u');
      tmux.type(`logbook session show --state-dir ${state} 5678`);
      tmux.keys('Tab');
      await tmux.waitFor(`logbook session show --state-dir ${state} alpha-5678`, 'the id completed from a part of it');
    } finally {
      tmux.kill();
    }
  });
});

describe.runIf(shellTestsEnabled('fish'))('the fish completion script', () => {
  it('parses (fish -n) and completes a run id and a command', async () => {
    const path = await script('fish');
    await run('fish', ['-n', path], { env });
    const state = await stateWithRuns();
    const program = [
      `${LOGBOOK_FUNCTION.fish}; source '${path}'`,
      `complete -C 'logbook session show --state-dir ${state} bet'`,
      `complete -C 'logbook sess'`,
      `complete -C 'logbook session show --state-dir ${state} 5678'`,
    ].join('; ');
    const { stdout } = await run('fish', ['--no-config', '-c', program], { env });
    expect(stdout.split('\n').filter(Boolean)).toEqual([
      'beta-0001\tinterrupted: prompt of beta-0001',
      'session\tinspect, watch, search, export, copy and remove stored runs',
      'alpha-5678\tinterrupted: prompt of alpha-5678',
    ]);
  });
});
