/**
 * Byte fields: a thinking signature, or any opaque provider token kept beside
 * it. The reference writer keeps such a token as bytes, and its JSON encoding
 * writes bytes as base64 (standard alphabet, padded). A provider hands the token
 * over as a string, whose bytes are its UTF-8 encoding. So a journal holds base64
 * of the string's UTF-8 bytes, and the provider is sent back the decoded string;
 * a journal holding the provider's string itself would have the other
 * implementation send a wrong token on resume.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The journal's field for a token a provider sent. */
export function toByteField(token: string): string {
  return Buffer.from(token, 'utf8').toString('base64');
}

/** The token to send a provider, from the journal's field. */
export function fromByteField(field: string): string {
  return Buffer.from(field, 'base64').toString('utf8');
}

/**
 * The field as the reference writer would write its bytes back, or null when it
 * is not base64 in the standard alphabet with padding. Unused low bits in the
 * last character are accepted on read, as the reference's decoder does, and come
 * back zero.
 */
export function canonicalByteField(field: string): string | null {
  if (!BASE64.test(field)) return null;
  // Without padding every bit is used, so the text is already the canonical one.
  return field.endsWith('=') ? Buffer.from(field, 'base64').toString('base64') : field;
}
