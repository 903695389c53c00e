/**
 * What is sent is checked as its receiver will check it: its size, and its
 * schema (an unknown field refused), before it leaves.
 */
import { LogbookError } from '../core/index.js';
import { checkSize } from './decode.js';
import { encodeMessage } from './encode.js';
import type { MessageKind, MessageOfKind } from './protocol.js';
import { schemaProblem } from './schemas.js';

/** The bytes of a message to send, checked as a receiver will check them. */
export function outgoing<K extends MessageKind>(kind: K, message: MessageOfKind[K]): string {
  const text = encodeMessage(message);
  checkSize(text);
  const problem = schemaProblem(kind, JSON.parse(text));
  if (problem !== null) throw new LogbookError('invalid_message', `the ${kind} to send ${problem}`);
  return text;
}
