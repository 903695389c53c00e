/**
 * API keys and base URLs come from the environment, never from a config file or a
 * journal: the settings name the variable (`apiKeyEnv`; agent.yaml's
 * `api_key_env`), the shell holds the key.
 */
import { LogbookError, hasUrlCredentials, redactUrlCredentials } from '../../core/index.js';

/** The key sent to a server at a base URL when none is set: local servers (llama.cpp, Ollama, vLLM) take any, or none. */
export const PLACEHOLDER_API_KEY = 'logbook-no-key';

/**
 * The API key for a provider, one rule for every provider: the variable's
 * value; unset, with a base URL given and the default variable, the
 * placeholder (a local server that checks no key); else `provider_auth`.
 * A variable named explicitly must be set.
 */
export function apiKeyOf(providerId: string, keyEnv: string, named: boolean, baseUrl: string | undefined, env: Readonly<Record<string, string | undefined>> | undefined): string {
  const key = envValue(keyEnv, env);
  if (key !== undefined) return key;
  if (baseUrl === undefined || named) throw missingKeyError(providerId, keyEnv);
  return PLACEHOLDER_API_KEY;
}

/** A variable's value; an empty one counts as unset. */
export function envValue(name: string, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** No key where one is needed: a program's message, naming the option (the command adds the config key). */
export function missingKeyError(providerId: string, envName: string): LogbookError {
  return new LogbookError('provider_auth', `${providerId}: ${envName} is not set: set it to the API key, or name the variable that holds it with apiKeyEnv`);
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
