/**
 * --verbose and LOGBOOK_DEBUG=1 show more (stack traces, thinking, per-turn
 * usage), and all of it is as safe for a terminal as the rest: an API server's
 * error text or stop reason cannot move the cursor, retitle the terminal or hide
 * text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli } from '../helpers/cli.js';
import { HOSTILE, UNSAFE_CHARS } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-verbose-');
const config = join(dir, 'agent.yaml');
writeFileSync(config, 'provider: anthropic\nmodel: claude-test\nthinking: summarized\n');
const api = useFakeAnthropic();

beforeEach(() => api.reset());

const env = { ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
const ways: [string, string[], Record<string, string>][] = [
  ['--verbose', ['--verbose'], {}],
  ['LOGBOOK_DEBUG=1', [], { LOGBOOK_DEBUG: '1' }],
];

const run = (flags: string[], debugEnv: Record<string, string> = {}) =>
  runCli(['run', '--config', config, '--state-dir', join(dir, 'state'), ...flags, 'hello'], {
    cwd: dir,
    env: { ...env, ...debugEnv, ANTHROPIC_BASE_URL: api.url },
  });

describe.each(ways)('with %s', (_, flags, debugEnv) => {
  it("an API server's error message is sanitized in the error line and in the stack trace", async () => {
    api.reply({ error: { status: 400, type: 'invalid_request_error', message: `bad ${HOSTILE} request` } });
    const r = await run(flags, debugEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: anthropic refused the request \(400 invalid_request_error\): bad A/m);
    expect(r.stderr).toMatch(/\n\s+at /); // the stack trace is there
    expect(r.stderr).not.toMatch(UNSAFE_CHARS);
  });
});

describe('with --verbose', () => {
  it("a reply's stop reason and thinking are sanitized in the per-turn notes", async () => {
    api.reply({
      message: {
        content: [
          { type: 'thinking', thinking: `think ${HOSTILE}`, signature: 'c2ln' },
          { type: 'text', text: 'The answer.' },
        ],
        stop_reason: `end_turn${HOSTILE}`,
      },
    });
    const r = await run(['--verbose']);
    expect(r.stdout).toBe('The answer.\n');
    expect(r.stderr).toContain('stop: end_turn');
    expect(r.stderr).toContain('think A');
    expect(r.stderr).not.toMatch(UNSAFE_CHARS);
  });
});
