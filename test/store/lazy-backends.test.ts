/**
 * Importing logbook's API, or using the file store, never loads the NATS client:
 * only a JetStream store that connects does. Runs the built package in a child
 * process (`npm run build` first), so the module cache is a clean one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');

function natsModulesAfter(script: string): number {
  const body = `
    import { createRequire } from 'node:module';
    const api = await import('./dist/index.js');
    ${script}
    const cache = createRequire(import.meta.url).cache;
    console.log(Object.keys(cache).filter((k) => k.includes('@nats-io')).length);`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', body], { cwd: repo, encoding: 'utf8' });
  expect(out.stderr).toBe('');
  return Number(out.stdout.trim());
}

it('loads the NATS client only for a JetStream store', () => {
  expect(existsSync(resolve(repo, 'dist/index.js')), 'run `npm run build` first').toBe(true);
  expect(natsModulesAfter(`const s = await api.openStore('file', {}, { stateDir: '/nonexistent' }); await s.list();`)).toBe(0);
  // A failing connect is enough: the client had to load to try.
  expect(
    natsModulesAfter(`await api.openStore('jetstream', { stream: 'S' }, { nats: { url: 'nats://127.0.0.1:1' } }).catch(() => {});`),
  ).toBeGreaterThan(0);
});
