/**
 * What logbook reads of a client's A2A message: the prompt it carries, the
 * answer it gives to an INPUT_REQUIRED task, and whether it is within bounds.
 * A peer's text is untrusted input, exactly as a model's.
 */
import { Role, type Message } from '@a2a-js/sdk';

/**
 * Set in a call's context state when its message names no context and no task:
 * the SDK makes a new context for it, so no earlier task can be in it.
 */
export const NEW_CONTEXT = 'logbook.newContext';

/** The most parts a message may carry. */
export const MAX_PARTS = 32;
/** The most bytes of text and data a message may carry, all parts together. */
export const MAX_MESSAGE_TEXT_BYTES = 64 * 1024;

/** An approval's answer, read from a client's message: approve or deny (with the rest of the text as the reason). */
export type ApprovalAnswer = { approve: true } | { approve: false; reason?: string };

/** The answer a message gives to an INPUT_REQUIRED task, or null when it gives none. */
export function approvalAnswer(message: Message): ApprovalAnswer | null {
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === 'data' && c.value !== null && typeof c.value === 'object') {
      const v = (c.value as { approval?: unknown }).approval;
      if (v === 'approve') return { approve: true };
      if (v === 'deny') {
        const reason = (c.value as { reason?: unknown }).reason;
        return typeof reason === 'string' && reason.trim() !== '' ? { approve: false, reason: reason.trim() } : { approve: false };
      }
    }
    if (c?.$case === 'text') {
      const m = /^\s*(approve|deny)\b[\s:,.-]*([\s\S]*)$/i.exec(c.value);
      if (m === null) continue;
      if (m[1]!.toLowerCase() === 'approve') return { approve: true };
      const reason = m[2]!.trim();
      return reason !== '' ? { approve: false, reason } : { approve: false };
    }
  }
  return null;
}

/** The prompt a message carries: its text parts, then its data parts as JSON. */
export function promptOfMessage(message: Message): string {
  const out: string[] = [];
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === 'text') out.push(c.value);
    else if (c?.$case === 'data') out.push(JSON.stringify(c.value));
    else if (c?.$case === 'url') out.push(c.value);
  }
  return out.join('\n\n');
}

/** Why a client's message is out of bounds, or null when it is not. */
export function messageProblem(message: Message): string | null {
  if (message.role !== Role.ROLE_USER) return 'message.role must be ROLE_USER: a message a client sends speaks for its user';
  if (message.parts.length === 0) return 'the message has no parts';
  if (message.parts.length > MAX_PARTS) return `the message has ${message.parts.length} parts; at most ${MAX_PARTS} are taken`;
  let bytes = 0;
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === 'text' || c?.$case === 'url') bytes += Buffer.byteLength(c.value, 'utf8');
    else if (c?.$case === 'data') bytes += Buffer.byteLength(JSON.stringify(c.value ?? null), 'utf8');
    else if (c?.$case === 'raw') return 'file parts with raw bytes are not taken; send text or data';
  }
  if (bytes > MAX_MESSAGE_TEXT_BYTES) return `the message carries ${bytes} bytes; at most ${MAX_MESSAGE_TEXT_BYTES} are taken`;
  return null;
}
