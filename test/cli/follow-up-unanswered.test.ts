/**
 * A follow-up to a run whose model call failed (no answer journaled): the new
 * turn joins the unanswered one, as a chat's next turn does after a stopped
 * answer, and `-c PROMPT` goes on with it rather than refusing it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { anthropicErrors, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();

describe('a follow-up to a run whose model call failed', () => {
  it('-c PROMPT joins the unanswered turn, in the same run, and the model sees both', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.yaml'), `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\n`);
    const state = join(dir, 'state');
    const env = { ANTHROPIC_API_KEY: 'sk-wrong', LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
    anthropic.reply(anthropicErrors.unauthorized());
    const failed = await runCli(['run', '--name', 'paris', '--state-dir', state, 'what is the capital of France?'], { cwd: dir, env });
    expect(failed.code).toBe(1);
    // The hint names the variable the key is read from.
    expect(failed.stderr).toContain('; check the API key (ANTHROPIC_API_KEY), then resume with: logbook run --resume paris');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Paris; and Rome is Italy’s.' }] } });
    const c = await runCli(['run', '-c', '--state-dir', state, 'what about Rome'], { cwd: dir, env: { ...env, ANTHROPIC_API_KEY: 'sk-right' } });
    expect(c.stderr).not.toMatch(/^logbook:/m);
    expect(c.code).toBe(0);
    expect(c.stdout).toBe('Paris; and Rome is Italy’s.\n');
    const messages = anthropic.requests.at(-1)!.json.messages as { role: string; content: { type: string; text: string }[] }[];
    expect(messages).toEqual([
      { role: 'user', content: [expect.objectContaining({ type: 'text', text: 'what is the capital of France?' }), expect.objectContaining({ type: 'text', text: 'what about Rome' })] },
    ]);
    const { state: s } = await new FileStore(join(state, 'runs')).load('paris');
    expect(s.status).toBe('completed');
    expect(s.counters.llm_calls).toBe(1);
    // The same run went on: no fork was made for it.
    expect((await new FileStore(join(state, 'runs')).list()).map((r) => r.runId)).toEqual(['paris']);
  });
});
