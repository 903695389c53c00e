/** The pure core: record format, encoder and decoder, JSON text scanning, fold, fingerprint, gates, id and append rules. No IO, no environment. */
export * from './errors.js';
export * from './records.js';
export { RawJson } from './raw-json.js';
export { quote, canonicalRawText, canonicalJson, escapeTerminalControls, nonJsonPart, TERMINAL_CONTROLS, type NonJsonPart } from './json-text.js';
export { rawMembers } from './json-scan.js';
export { encodeRecord, encodeMessage, encodeBlock } from './encode.js';
export { decodeRecord } from './decode.js';
export { toByteField, fromByteField } from './byte-field.js';
export { parseJournal, journalLines, decodeLines, decodeLine, isUnparsable, type JournalLines } from './journal-text.js';
export * from './fold.js';
export * from './call-facts.js';
export * from './fingerprint.js';
export * from './gates.js';
export { checkAppend, type AppendDecision } from './append.js';
export { validateId, isValidId, MAX_ID_LENGTH } from './ids.js';
export { stateToJson, stateJsonParts } from './state-json.js';
export { formatTimestamp } from './time.js';
export { textMatcher, type TextMatcher } from './search.js';
