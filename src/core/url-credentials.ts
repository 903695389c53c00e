/**
 * A URL may carry credentials (`http://user:password@host/`, `nats://token@host`),
 * and a message that quotes it is written where anyone may read it: stderr, a
 * journal's terminal record (which a copy or an export carries on), a log. So
 * every message that quotes a URL passes it through here first.
 */

/**
 * A scheme, `://`, then userinfo up to its last `@` before the host: nothing
 * there may be a `/`, `?`, `#`, white space or a quote, so the match never
 * runs past the URL's authority into a path or the text around it.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`]*)@/gi;

/** Shown instead of the secret part of userinfo. */
export const REDACTED = '***';

/**
 * `text` with the credentials of every URL in it hidden: a password after the
 * user name (`user:***@`), and userinfo that is one word alone (`***@`), since
 * that is often a token.
 */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(USERINFO, (_, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon < 0 ? REDACTED : `${userinfo.slice(0, colon)}:${REDACTED}`}@`;
  });
}

/** Whether `url` names a user or password (which a request must not carry in it). */
export function hasUrlCredentials(url: string): boolean {
  return redactUrlCredentials(url) !== url;
}
