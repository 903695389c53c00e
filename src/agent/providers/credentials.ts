/**
 * API keys and base URLs come from the environment, never from a config file or a
 * journal: the config names the variable (`api_key_env`), the shell holds the key.
 */
import { LogbookError, hasUrlCredentials, redactUrlCredentials } from '../../core/index.js';

/** A variable's value; an empty one counts as unset. */
export function envValue(name: string, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function missingKeyError(providerId: string, envName: string): LogbookError {
  return new LogbookError('provider', `${providerId}: ${envName} is not set; export it or set api_key_env in the config`);
}

/**
 * Refuses a base URL that carries credentials (`https://user:password@host/`):
 * a request cannot be sent to one (fetch refuses it, and its error would quote
 * the URL whole), and the API key has its own variable.
 */
export function checkBaseUrl(providerId: string, url: string | undefined, keyEnv: string): void {
  if (url === undefined || !hasUrlCredentials(url)) return;
  throw new LogbookError(
    'config',
    `${providerId}: the base URL ${redactUrlCredentials(url)} holds credentials, which a request to the API cannot carry; ` +
      `remove them from base_url (or the variable that sets it): the key is read from ${keyEnv}`,
  );
}
