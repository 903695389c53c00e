/**
 * Chat follow-ups, one per line: typed at a `> ` prompt on a terminal, or read
 * from stdin when it is not one (so a chat can be scripted through a pipe).
 */
import { createInterface, type Interface } from 'node:readline';
import type { ChatInput } from '../agent/runner.js';

export interface ClosableChatInput extends ChatInput {
  close(): void;
}

export function chatInput(input: NodeJS.ReadableStream = process.stdin, prompt = '> '): ClosableChatInput {
  const tty = (input as { isTTY?: boolean }).isTTY === true;
  const rl: Interface = createInterface({ input, output: tty ? process.stderr : undefined, terminal: tty });
  rl.setPrompt(prompt);
  const queued: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  rl.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  });
  rl.on('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w(null);
  });
  return {
    next() {
      const line = queued.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(null);
      if (tty) rl.prompt();
      return new Promise((resolve) => waiting.push(resolve));
    },
    close() {
      rl.close();
    },
  };
}
