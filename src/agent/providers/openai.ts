// Placeholder until the openai provider lands; see issue 3.
import { LogbookError } from '../../core/index.js';
import type { ProviderSettings } from './index.js';
import type { Provider } from '../provider.js';

export class OpenAIProvider {
  static fromSettings(_settings: ProviderSettings): Provider {
    throw new LogbookError('unavailable', 'the openai provider is not built yet');
  }
}
