/**
 * An agent's identity typed on the command line is checked before anything
 * connects, and refused the same way by every command that takes one.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const cwd = tempDir('logbook-identity-');

describe('an identity argument', () => {
  it.each([
    ['ask', ['ask', 'research.er', 'hello']],
    ['agents show', ['agents', 'show', 'research.er']],
    ['tasks cancel', ['tasks', 'cancel', 'research.er', '3MtSMqUHqzUJm83eiOJhCjmfvUh']],
  ])('that is no subject token is a usage error of %s, said one way', async (_command, args) => {
    const r = await runCli(args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`logbook: "research.er" is not an agent's identity (letters, digits, _ and -)\n`);
  });
});

describe('a wait typed on the command line', () => {
  it('longer than a timer holds is refused, not ended at once', async () => {
    const r = await runCli(['tasks', 'cancel', 'someone', '3MtSMqUHqzUJm83eiOJhCjmfvUh', '--wait', '3600000'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('logbook: --wait 3600000 is longer than a wait can be (about 24.8 days, the longest wait a timer holds)\n');
  });
});
