/**
 * The reference's NATS binding (core NATS request/reply): each agent is a NATS
 * micro service named by its identity, answering discovery and tool calls on two
 * subjects, so that NATS permissions can allow discovery without allowing tool
 * execution. Subjects only route: a body's protocol says what it is.
 */
export const SUBJECT_PREFIX = 'choria.fisk-ai';

/** Where an agent answers `discovery.request` (only those). */
export function discoverySubject(identity: string): string {
  return `${SUBJECT_PREFIX}.discovery.${identity}`;
}

/** Where an agent answers `tool.request` (only those). */
export function toolSubject(identity: string): string {
  return `${SUBJECT_PREFIX}.tool.${identity}`;
}

/** The identity a service endpoint's subject serves discovery for, if it is one. */
export function identityOfDiscoverySubject(subject: string): string | undefined {
  const prefix = `${SUBJECT_PREFIX}.discovery.`;
  return subject.startsWith(prefix) ? subject.slice(prefix.length) : undefined;
}

/** The endpoint names of the service, as the reference names them. */
export const ENDPOINTS = { discovery: 'discovery', tool: 'tool' } as const;

/** How long a caller waits for a reply unless told otherwise. */
export const DEFAULT_REPLY_TIMEOUT_MS = 30_000;
