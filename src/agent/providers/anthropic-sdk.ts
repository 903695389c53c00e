/**
 * What the anthropic provider uses of the Anthropic SDK, and nothing else: the
 * build bundles this module with the SDK into one file (scripts/bundle.mjs),
 * and what is not named here is left out of it. The SDK's full client makes
 * every resource of the API, four times the code of the one a run calls.
 */
export { APIConnectionError, APIError, APIUserAbortError, type Middleware } from '@anthropic-ai/sdk';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

/** The SDK's client with the Messages API alone. */
export class MessagesClient extends BaseAnthropic {
  readonly messages = new Messages(this);
}
