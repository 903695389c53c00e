/**
 * A workspace run's set-up for the tests of `session diff` and `session rewind`:
 * a directory `ws` to run in, a state directory, and a config with one command
 * tool `sh` (its `cmd` run by sh in the workspace) and the script provider
 * playing `turns`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export interface WorkspaceSetup {
  root: string;
  ws: string;
  state: string;
  config: string;
}

export interface WorkspaceConfig {
  /** Config lines put before `tools:` (written as an empty line when not given but `sideEffects` is). */
  extra?: string;
  /** The tool's `side_effects`; no such line when undefined. */
  sideEffects?: boolean;
}

export function workspaceSetup(prefix: string, turns: unknown[], options: WorkspaceConfig = {}): WorkspaceSetup {
  const root = tempDir(prefix);
  const ws = join(root, 'ws');
  const state = join(root, 'state');
  mkdirSync(ws);
  writeFileSync(join(root, 'script.json'), JSON.stringify({ turns }));
  const config = join(root, 'agent.yaml');
  const extra = options.extra !== undefined || options.sideEffects !== undefined ? `${options.extra ?? ''}\n` : '';
  const sideEffects = options.sideEffects !== undefined ? `    side_effects: ${options.sideEffects}\n` : '';
  writeFileSync(
    config,
    `provider: script
script: script.json
${extra}tools:
  - name: sh
    description: run a command
    input_schema: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
    command: [sh, -c, '{{cmd}}']
${sideEffects}`,
  );
  return { root, ws, state, config };
}

/** A call of the `sh` tool. */
export const sh = (cmd: string): { name: string; input: { cmd: string } } => ({ name: 'sh', input: { cmd } });
