/**
 * Providers by name. SDKs load only when their provider is used, so a scripted
 * run or a `session ls` never pays for them.
 */
import { LogbookError } from '../../core/index.js';
import type { Provider } from '../provider.js';
import type { ProviderSettings } from './settings.js';

export type { ProviderSettings } from './settings.js';

/** A provider from settings: `anthropic` (the Messages API), `openai` (any Chat Completions server) or `script` (turns from a file). Its SDK loads only here; API keys are read from `settings.env`, never process.env. */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  switch (settings.provider) {
    case 'script': {
      const { ScriptProvider } = await import('./script.js');
      if (!settings.script) throw new LogbookError('config', 'the script provider needs a script file');
      return new ScriptProvider(settings.model, settings.script, undefined, settings.scriptLog);
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
