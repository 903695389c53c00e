/**
 * Which store a command talks to. With --config FILE, that file's session
 * backend; without it, ./agent.yaml's when that file exists; else the default
 * file store. --state-dir DIR points the file backend at DIR/runs.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CONFIG_FILE, loadConfig, type LogbookConfig } from '../config/config.js';
import { openStore } from '../store/registry.js';
import type { Store } from '../store/store.js';
import type { Environment } from './environment.js';

export interface StoreFlags {
  /** --config FILE */
  config?: string;
  /** --state-dir DIR */
  stateDir?: string;
}

/** Adds --config and --state-dir, the options every store-using command takes. */
export function addStoreOptions(command: Command): Command {
  return command
    .option('--config <file>', `the config file whose session backend to use (default: ./${DEFAULT_CONFIG_FILE} when it exists)`)
    .option('--state-dir <dir>', 'keep file-store runs in DIR/runs instead of the default state directory');
}

/** The config named by --config, else ./agent.yaml when it exists, else none. */
export function findConfig(path: string | undefined, cwd: string = process.cwd()): LogbookConfig | undefined {
  if (path !== undefined) return loadConfig(path);
  const implicit = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(implicit) ? loadConfig(implicit) : undefined;
}

/** Opens the configured backend, or the file store when there is no config. */
export function storeFor(environment: Environment, options: { config?: LogbookConfig | undefined; stateDir?: string | undefined }): Promise<Store> {
  const { config } = options;
  const context = { stateDir: options.stateDir ?? environment.defaultStateDir };
  if (config === undefined) return openStore('file', {}, context);
  return openStore(config.session.backend, config.session.options, {
    ...context,
    configDir: config.dir,
    ...(config.nats !== undefined ? { nats: config.nats } : {}),
  });
}

/** Runs `fn` with the store the flags select, and closes it after. */
export async function withStore<T>(environment: Environment, flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await storeFor(environment, { config: findConfig(flags.config), stateDir: flags.stateDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
