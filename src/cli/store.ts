/**
 * Which store a command talks to. With --config FILE, that file's session
 * backend; without it, ./agent.yaml's when that file exists; else the default
 * file store. --state-dir DIR points the file backend at DIR/runs.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CONFIG_FILE, loadConfig, type LogbookConfig } from '../config/config.js';
import { LogbookError } from '../core/index.js';
import { openStore } from '../store/registry.js';
import type { WaitListener } from '../store/backend.js';
import type { Store } from '../store/store.js';
import type { Environment } from './environment.js';

export interface StoreFlags {
  /** --config FILE */
  config?: string;
  /** --state-dir DIR */
  stateDir?: string;
}

/** Where a config is looked for when --config is not given, for --help. */
export const CONFIG_SEARCH = `$LOGBOOK_CONFIG, else ./${DEFAULT_CONFIG_FILE}, else $XDG_CONFIG_HOME/logbook/${DEFAULT_CONFIG_FILE}`;

/** Adds --config and --state-dir, the options every store-using command takes. */
export function addStoreOptions(command: Command): Command {
  return command
    .option('--config <file>', `the config file whose session backend to use (default: ${CONFIG_SEARCH}, when one exists)`)
    .option('--state-dir <dir>', 'keep file-store runs in DIR/runs instead of the default state directory');
}

/**
 * The config file to use: --config, else LOGBOOK_CONFIG, else ./agent.yaml, else
 * $XDG_CONFIG_HOME/logbook/agent.yaml; the last two only when they exist.
 */
export function configPath(given: string | undefined, environment: Environment, cwd: string = process.cwd()): string | undefined {
  if (given !== undefined) return given;
  if (environment.config !== undefined) return environment.config;
  return [resolve(cwd, DEFAULT_CONFIG_FILE), environment.userConfig].find((p) => existsSync(p));
}

/** The config configPath finds, loaded, for a command that cannot do without one. */
export function requireConfig(given: string | undefined, environment: Environment): LogbookConfig {
  const path = configPath(given, environment);
  if (path === undefined) {
    throw new LogbookError('config', 'no config: pass --config FILE, set LOGBOOK_CONFIG, or create ./agent.yaml (examples/ has one per provider)');
  }
  return loadConfig(path);
}

/** The config configPath finds, loaded; none when there is none. */
export function findConfig(given: string | undefined, environment: Environment): LogbookConfig | undefined {
  const path = configPath(given, environment);
  return path === undefined ? undefined : loadConfig(path);
}

/** Opens the configured backend, or the file store when there is no config; `onWait` hears of the backend's long waits. */
export function storeFor(
  environment: Environment,
  options: { config?: LogbookConfig | undefined; stateDir?: string | undefined; onWait?: WaitListener },
): Promise<Store> {
  const { config } = options;
  const context = { stateDir: options.stateDir ?? environment.defaultStateDir, ...(options.onWait !== undefined ? { onWait: options.onWait } : {}) };
  if (config === undefined) return openStore('file', {}, context);
  return openStore(config.session.backend, config.session.options, {
    ...context,
    configDir: config.dir,
    ...(config.nats !== undefined ? { nats: config.nats } : {}),
  });
}

/** Runs `fn` with the store the flags select, and closes it after. */
export async function withStore<T>(environment: Environment, flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await storeFor(environment, { config: findConfig(flags.config, environment), stateDir: flags.stateDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
