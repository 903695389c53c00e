/**
 * Which store a command talks to. With --config FILE, that file's session
 * backend; without it, ./agent.yaml's when that file exists; else the default
 * file store. --state-dir DIR points the file backend at DIR/runs.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CONFIG_FILE, loadConfigCached, type LogbookConfig } from '../config/config.js';
import { LogbookError, isLogbookError } from '../core/index.js';
import { messageLine } from './errors.js';
import { storeFromConfig } from '../config/store.js';
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
  return configSource(given, environment, cwd)?.path;
}

/** Where the config came from: named (--config, LOGBOOK_CONFIG) or found (./agent.yaml, the user's config dir). */
interface ConfigSource {
  path: string;
  found: boolean;
}

export function configSource(given: string | undefined, environment: Environment, cwd: string = process.cwd()): ConfigSource | undefined {
  if (given !== undefined) return { path: given, found: false };
  if (environment.config !== undefined) return { path: environment.config, found: false };
  const path = [resolve(cwd, DEFAULT_CONFIG_FILE), environment.userConfig].find((p) => existsSync(p));
  return path === undefined ? undefined : { path, found: true };
}

/** Loads a config; one found rather than named says so when it cannot be loaded, since nobody asked for it. */
function load(source: ConfigSource, environment: Environment): LogbookConfig {
  try {
    return loadConfigCached(source.path, environment.configCache);
  } catch (err) {
    if (!isLogbookError(err)) throw err;
    if (!source.found && (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      throw new LogbookError(err.code, `${err.message}; pass --config FILE, or start from one in examples/`, { cause: err });
    }
    if (!source.found) throw err;
    throw new LogbookError(err.code, `${err.message} (this config was found, not named: fix it, or pass --config FILE or --state-dir DIR to use another)`, {
      cause: err,
    });
  }
}

/** The message when a command that needs a config finds none. */
export const NO_CONFIG = `no config: pass --config FILE, set LOGBOOK_CONFIG, or create ./${DEFAULT_CONFIG_FILE} or $XDG_CONFIG_HOME/logbook/${DEFAULT_CONFIG_FILE} (examples/ has one per provider)`;

/** The config configSource finds, loaded, for a command that cannot do without one. */
export function requireConfig(given: string | undefined, environment: Environment): LogbookConfig {
  const source = configSource(given, environment);
  if (source === undefined) throw new LogbookError('config', NO_CONFIG);
  return load(source, environment);
}

/**
 * The config whose store a session command uses, loaded; none when there is
 * none, or when only --state-dir is given (that file store is meant, so a
 * config lying about is not read).
 */
export function findConfig(given: string | undefined, environment: Environment, stateDir?: string): LogbookConfig | undefined {
  if (given === undefined && stateDir !== undefined) return undefined;
  const source = configSource(given, environment);
  return source === undefined ? undefined : load(source, environment);
}

/** What a store warned of in this command, each said once on stderr however often a store is opened. */
const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`logbook: warning: ${messageLine(message)}\n`);
}

/** Opens the configured backend, or the file store when there is no config; `onWait` hears of the backend's long waits. */
export function storeFor(
  environment: Environment,
  options: { config?: LogbookConfig | undefined; stateDir?: string | undefined; onWait?: WaitListener },
): Promise<Store> {
  if (options.stateDir !== undefined && options.stateDir.trim() === '') {
    return Promise.reject(new LogbookError('usage', '--state-dir is empty (an unset shell variable?): give the directory to keep runs in'));
  }
  return storeFromConfig(options.config, {
    stateDir: options.stateDir ?? environment.defaultStateDir,
    onWarning: warnOnce,
    ...(options.onWait !== undefined ? { onWait: options.onWait } : {}),
  });
}

/** Runs `fn` with the store the flags select, and closes it after. */
export async function withStore<T>(environment: Environment, flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await storeFor(environment, { config: findConfig(flags.config, environment, flags.stateDir), stateDir: flags.stateDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
