/**
 * Providers by name. SDKs load only when their provider is used, so a scripted
 * run or a `session ls` never pays for them.
 */
import { LogbookError } from '../../core/index.js';
import type { Provider } from '../provider.js';

export interface ProviderSettings {
  provider: 'anthropic' | 'openai' | 'script';
  model: string;
  /** API base URL; otherwise the SDK's own default and environment variables apply. */
  baseUrl?: string;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv?: string;
  /** The script file, for the script provider. */
  script?: string;
}

export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  switch (settings.provider) {
    case 'script': {
      const { ScriptProvider } = await import('./script.js');
      if (!settings.script) throw new LogbookError('config', 'the script provider needs a script file');
      return new ScriptProvider(settings.model, settings.script);
    }
    case 'anthropic': {
      const { AnthropicProvider } = await import('./anthropic.js');
      return AnthropicProvider.fromSettings(settings);
    }
    case 'openai': {
      const { OpenAIProvider } = await import('./openai.js');
      return OpenAIProvider.fromSettings(settings);
    }
    default:
      throw new LogbookError('config', `unknown provider "${String(settings.provider)}"; use anthropic, openai or script`);
  }
}
