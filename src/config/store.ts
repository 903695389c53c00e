/**
 * The store a config names (its `session:` backend and options, its `nats:`
 * server), opened: for the command and for a program alike.
 */
import { homedir } from 'node:os';
import { LogbookError } from '../core/index.js';
import type { WaitListener } from '../store/backend.js';
import { defaultStateDir } from '../store/file/paths.js';
import { openStore } from '../store/registry.js';
import type { Store } from '../store/store.js';
import type { LogbookConfig } from './config.js';

/** How storeFromConfig opens the store. */
export interface ConfiguredStoreOptions {
  /**
   * Where the file store keeps runs (in DIR/runs). Default: the user's state
   * directory, `$XDG_STATE_HOME/logbook`, else `~/.local/state/logbook`, where
   * the `logbook` command finds them too; never the working directory.
   */
  stateDir?: string;
  /** Where XDG_STATE_HOME is read for the default state directory (pass `process.env`); no variable is read otherwise. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told what the store waits for when a wait is long (a JetStream stream electing a leader), and null when it is over. */
  onWait?: WaitListener;
  /** Told, once, of what the operator should fix but that stops nothing (a runs directory others can write to). */
  onWarning?: (message: string) => void;
}

/**
 * Opens the store `config` names: its `session:` backend with its options (a
 * relative path in them taken from the config's directory), and its `nats:`
 * server for a JetStream one; the file store when `config` is undefined.
 * Close it when done.
 */
export function storeFromConfig(config: LogbookConfig | undefined, options: ConfiguredStoreOptions = {}): Promise<Store> {
  if (options.stateDir !== undefined && options.stateDir.trim() === '') {
    return Promise.reject(new LogbookError('usage', 'the state directory is empty: give the directory to keep runs in'));
  }
  const context = {
    stateDir: options.stateDir ?? defaultStateDir(options.env ?? {}, homedir()),
    ...(options.onWait !== undefined ? { onWait: options.onWait } : {}),
    ...(options.onWarning !== undefined ? { onWarning: options.onWarning } : {}),
  };
  if (config === undefined) return openStore('file', {}, context);
  return openStore(config.session.backend, config.session.options, {
    ...context,
    configDir: config.dir,
    ...(config.nats !== undefined ? { nats: config.nats } : {}),
  });
}
