/**
 * Project instructions through the binary, against the local Messages server:
 * the AGENTS.md found walking up to the repository root is in the request
 * after the system prompt, a note beside the run keeps its file and hash
 * (`session show`), a resume after it changed is accepted and says so, and
 * `instructions: false` gives none.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
const env = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

/** A repository with AGENTS.md at its root, and a directory inside it that the runs are made in. */
function repository(config = '') {
  const root = tempDir('logbook-instructions-');
  mkdirSync(join(root, '.git'));
  const dir = join(root, 'src', 'app');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), 'Always answer in French.\n');
  const cfg = join(root, 'agent.yaml');
  writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nsystem: You are terse.\n${config}`);
  const state = join(root, 'state');
  const cli = (args: string[], input?: string) => runCli([...args, '--config', cfg, '--state-dir', state], { cwd: dir, env: env(), ...(input !== undefined ? { input } : {}) });
  return { root, dir, state, cli };
}

const systemOf = (i: number): string => JSON.stringify(anthropic.requests[i]!.json.system);
const answer = (text: string) => ({ message: { content: [{ type: 'text', text }] } });

describe('project instructions', () => {
  it('are sent after the system prompt, noted by file and hash, and a resume after they changed goes on and says so', async () => {
    anthropic.reset();
    const { root, state, cli } = repository();
    anthropic.reply(answer('Bonjour.'));
    const first = await cli(['run', '--chat', '--name', 'talk'], 'Hello\n');
    expect(first.code).toBe(0);
    expect(systemOf(0)).toMatch(/You are terse\.\\n\\n<project-instructions file=\\".*AGENTS\.md\\">\\nAlways answer in French\.\\n<\/project-instructions>/);
    // Never stored: neither the journal nor a note holds the text.
    for (const name of readdirSync(join(state, 'runs'))) expect(readFileSync(join(state, 'runs', name), 'utf8')).not.toContain('Always answer in French');
    const show = await cli(['session', 'show', 'talk']);
    expect(show.stdout).toMatch(new RegExp(`^instructions +${join(root, 'AGENTS.md').replace(/[.]/g, '\\.')} \\(sha256 [0-9a-f]{12}\\)$`, 'm'));

    writeFileSync(join(root, 'AGENTS.md'), 'Always answer in German.\n');
    anthropic.reply(answer('Hallo.'));
    const again = await cli(['run', '--resume', 'talk', '--chat'], 'Hello again\n');
    expect(again.code).toBe(0); // outside the fingerprint: no --force
    expect(again.stderr).toMatch(/the project instructions changed since run talk last ran: \S+AGENTS\.md \(sha256 [0-9a-f]{12}\) then, \S+AGENTS\.md \(sha256 [0-9a-f]{12}\) now/);
    expect(systemOf(1)).toContain('Always answer in German.');
    expect(systemOf(1)).not.toContain('French');
    const shown = (await cli(['session', 'show', 'talk'])).stdout;
    expect(shown).toMatch(/^instructions +\S+AGENTS\.md \(sha256 ([0-9a-f]{12})\); \S+AGENTS\.md \(sha256 (?!\1)[0-9a-f]{12}\) from seq \d+$/m);
  });

  it('are not read with instructions: false', async () => {
    anthropic.reset();
    const { cli } = repository('instructions: false\n');
    anthropic.reply(answer('Hi.'));
    expect((await cli(['run', '--name', 'plain', 'Hello'])).code).toBe(0);
    expect(systemOf(0)).not.toContain('project-instructions');
    const show = await cli(['session', 'show', 'plain']);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(/^instructions/m);
  });
});
