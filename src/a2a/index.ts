/**
 * The reference's agent-to-agent wire: message types, their bytes (encode),
 * strict reading (decode, against logbook's own schemas), stamping, ids and
 * subjects. The NATS sides (client.ts, service.ts, directory.ts) load the NATS
 * service package, so they are imported by path where they are used.
 */
export * from './protocol.js';
export { encodeMessage, encodeBlock } from './encode.js';
export { decodeMessage, decodeAnyMessage, checkSize, bodySize, type Body, type NotUnderstood } from './decode.js';
export { outgoing } from './outgoing.js';
export { stampRequest, stampReply, stampTaskRequest, stampTaskReply, stampCancel, type TaskAddress } from './stamp.js';
export { newMessageId, mintedAt, derivedMessageId } from './ids.js';
export { formatWireTime, normalizeWireTime, nowNs } from './wire-time.js';
export {
  SUBJECT_PREFIX,
  discoverySubject,
  toolSubject,
  identityOfDiscoverySubject,
  ENDPOINTS,
  DEFAULT_REPLY_TIMEOUT_MS,
  TASK_SUBJECTS,
  EVENT_SUBJECTS,
  taskSubject,
  identityOfTaskSubject,
  eventsSubject,
  EVENTS_HEADER,
  EVENTS_BY_SENDER,
  EVENTS_METADATA,
  cancelSubject,
  eventMessageId,
  isSubjectToken,
  subjectCovers,
} from './subjects.js';
export { a2aSchema, schemaProblem, validatorOf, compileA2ASchemas, A2A_AJV_OPTIONS, validatorName, type A2ASchemaName } from './schemas.js';
export { TaskProjection, taskEvents, headerFits, HEADER_ROOM, TASK_END_CODES, type TaskEvent, type TaskProjectionOptions } from './task-events.js';
