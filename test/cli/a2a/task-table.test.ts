/**
 * The table `tasks ls` prints: its columns line up as a terminal draws them,
 * wide characters (CJK, emoji) taking two columns, and the prompt is cut to
 * what the terminal has left.
 */
import { describe, expect, it } from 'vitest';
import { taskTable, type QueuedTask } from '../../../src/cli/a2a/tasks.js';
import { displayWidth } from '../../../src/cli/output.js';

const task = (over: Partial<QueuedTask>): QueuedTask => ({
  request: '3MtSMqUHqzUJm83eiOJhCjmfvUh',
  agent: 'researcher',
  sender: 'lead',
  conversation: 'c',
  queued: '2026-12-02T03:00:00Z',
  prompt: 'Find the paper',
  run: null,
  ...over,
});

describe('the tasks ls table', () => {
  it('aligns every column after a sender of wide characters', () => {
    const out = taskTable([task({ sender: '研究者' }), task({ sender: 'lead', prompt: 'Summarize it' })], undefined);
    const lines = out.trimEnd().split('\n');
    const promptAt = (line: string, prompt: string): number => displayWidth(line.slice(0, line.indexOf(prompt)));
    expect(promptAt(lines[1]!, 'Find the paper')).toBe(promptAt(lines[2]!, 'Summarize it'));
    expect(promptAt(lines[0]!, 'PROMPT')).toBe(promptAt(lines[2]!, 'Summarize it'));
  });

  it('cuts the prompt to the terminal, no line wider than it', () => {
    const out = taskTable([task({ prompt: '長い'.repeat(60) })], 100);
    for (const line of out.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(100);
    expect(out).toContain('\u2026');
  });
});
