/**
 * A server a test file shares across its tests: started before them and closed
 * after, reachable as a plain constant at the file's top level.
 *
 *   const anthropic = forFile(() => FakeAnthropic.start());
 *   it('…', () => { anthropic.reply(…); … anthropic.url … });
 *
 * The constant forwards to the started server; touching it outside the file's
 * tests (before beforeAll) says so.
 */
import { afterAll, beforeAll } from 'vitest';

export function forFile<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = (): T => {
    if (started === undefined) throw new Error('a server of this test file is used before the file started it (outside its tests)');
    return started;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const server = running();
      const value: unknown = Reflect.get(server, prop, server);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(server) : value;
    },
    set(_, prop, value) {
      const server = running();
      return Reflect.set(server, prop, value, server);
    },
  });
}
