import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, readEnvironment } from '../../src/cli/main.js';

const environment = readEnvironment({ HOME: '/home/user' });

/** Every command of a tree, by its path of names, with its help as printed. */
function helps(command: Command, path: string[] = [], out = new Map<string, string>()): Map<string, string> {
  for (const sub of command.commands) {
    const at = [...path, sub.name()];
    out.set(at.join(' '), sub.helpInformation());
    helps(sub, at, out);
  }
  return out;
}

describe('the program a command line is parsed by', () => {
  it('for a line naming a command, holds that command group alone, each of its commands as the whole program defines it', () => {
    const whole = helps(buildProgram(environment));
    for (const word of ['run', 'session', 'mcp', 'serve', 'ask', 'tasks', 'agents', 'ui']) {
      const program = buildProgram(environment, { for: word });
      const own = helps(program);
      expect(own.has(word)).toBe(true);
      for (const [path, help] of own) expect(help, path).toBe(whole.get(path));
      expect(program.commands.length).toBeLessThan(buildProgram(environment).commands.length);
    }
    expect(buildProgram(environment, { for: 'run' }).commands.map((c) => c.name())).toEqual(['run']);
  });

  it('for any other word, or none, holds every command', () => {
    const all = buildProgram(environment).commands.map((c) => c.name());
    expect(all).toEqual(expect.arrayContaining(['run', 'session', 'mcp', 'serve', 'ask', 'tasks', 'agents', 'ui', 'completion', 'complete']));
    for (const word of [undefined, 'rnu', 'help', 'completion', 'complete', '--help']) expect(buildProgram(environment, { for: word }).commands.map((c) => c.name())).toEqual(all);
  });
});
