/**
 * API keys and base URLs come from the environment, never from a config file or a
 * journal: the config names the variable (`api_key_env`), the shell holds the key.
 */
import { LogbookError } from '../../core/index.js';

/** A variable's value; an empty one counts as unset. */
export function envValue(name: string, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function missingKeyError(providerId: string, envName: string): LogbookError {
  return new LogbookError('provider', `${providerId}: ${envName} is not set; export it or set api_key_env in the config`);
}
