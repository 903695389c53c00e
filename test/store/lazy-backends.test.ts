/**
 * Importing logbook's API, or using the file store, never loads the NATS client:
 * only a JetStream store that connects does; nor does it load the command
 * line's modules (the build keeps them out of the chunks the API imports).
 * Runs the built package in a child process (`npm run build` first), so the
 * module cache is a clean one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { loadedSources, loadProbe } from '../helpers/load-probe.js';
import { tempDir } from '../helpers/tmp.js';

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

it('loads no module of the command line, nor commander, when the API is imported and a run started', () => {
  const log = join(tempDir(), 'loaded.txt');
  const body = `
    const api = await import('./dist/index.js');
    const provider = api.scriptProvider([{ text: 'hi' }]);
    const store = new api.FileStore(process.argv[1]);
    const run = await api.startRun(store, { provider, tools: new api.ToolRegistry([]), system: '', maxTokens: 100, maxIterations: 2 }, 'hello');
    await run.execute();
    await run.close();
    await store.close?.();`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', body, join(tempDir(), 'runs')], { cwd: repo, encoding: 'utf8', env: { ...process.env, ...loadProbe(log) } });
  expect(out.stderr).toBe('');
  const loaded = loadedSources(log);
  expect(loaded).toMatch(/src\/agent\/runner\.ts/); // the probe sees the run's modules
  expect(loaded.split('\n').filter((l) => /(^|\/)src\/cli\/|node_modules\/commander\//.test(l))).toEqual([]);
});
