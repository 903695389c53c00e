import type { SdkWarningListener } from './sdk-warnings.js';
import type { RetryListener, RetryPolicy } from './retry.js';

/** The environment variable a provider's API key is read from: the config's api_key_env, else the SDK's own. */
export function apiKeyVariable(provider: 'anthropic' | 'openai', apiKeyEnv?: string): string {
  return apiKeyEnv ?? (provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');
}

/** What a provider is built from. The environment is passed in: providers never read process.env. */
export interface ProviderSettings {
  provider: 'anthropic' | 'openai' | 'script';
  model: string;
  /** API base URL; otherwise the variable the SDK documents (in `env`), else the SDK's default. */
  baseUrl?: string;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv?: string;
  /** The script file, for the script provider. */
  script?: string;
  /** The environment to read API keys and base URLs from. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Retries of a failed model call; the default policy when absent. */
  retry?: RetryPolicy;
  /** Told why each retry is made. */
  onRetry?: RetryListener;
  /** Told what the provider's SDK warns of (a deprecated model); without it the SDK writes to stderr itself. */
  onWarning?: SdkWarningListener;
  /** How long a call may hear nothing from the server before it is tried again, in ms (default: streaming.ts). */
  idleTimeoutMs?: number;
  /** The config file these settings were read from, named where a message names one of its keys (idle_timeout). */
  configFile?: string;
  /** The script provider appends `{"turn":N}` to this file for every request it answers. */
  scriptLog?: string;
}
